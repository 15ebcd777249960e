#include "harness/scenario/counters_formula.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace harness {

struct FormulaNode {
  enum class Kind { number, name, negate, add, subtract, multiply, divide };
  Kind kind = Kind::number;
  double number = 0;
  std::string name;
  std::string text;  // the source text of this node, for reasons
  std::shared_ptr<const FormulaNode> left, right;
};

namespace {

using Node = std::shared_ptr<const FormulaNode>;

// Deep nesting is refused rather than risking the stack (fuzzed input).
constexpr int kMaxDepth = 64;

Formula::Value evaluate_node(const FormulaNode& n, const Formula::Lookup& lookup) {
  using Kind = FormulaNode::Kind;
  switch (n.kind) {
    case Kind::number: return {n.number, ""};
    case Kind::name: {
      Formula::Value v = lookup(n.name);
      if (!v.value) return {std::nullopt, fmt::format("needs {}: {}", n.name, v.unavailable)};
      return v;
    }
    case Kind::negate: {
      Formula::Value v = evaluate_node(*n.left, lookup);
      if (v.value) *v.value = -*v.value;
      return v;
    }
    default: break;
  }
  Formula::Value a = evaluate_node(*n.left, lookup);
  if (!a.value) return a;
  Formula::Value b = evaluate_node(*n.right, lookup);
  if (!b.value) return b;
  double r = 0;
  switch (n.kind) {
    case Kind::add: r = *a.value + *b.value; break;
    case Kind::subtract: r = *a.value - *b.value; break;
    case Kind::multiply: r = *a.value * *b.value; break;
    case Kind::divide:
      if (*b.value == 0) return {std::nullopt, fmt::format("division by zero: {} is 0", n.right->text)};
      r = *a.value / *b.value;
      break;
    default: break;
  }
  if (!std::isfinite(r)) return {std::nullopt, fmt::format("{} is not a finite number", n.text)};
  return {r, ""};
}

}  // namespace

Formula::Value Formula::evaluate(const Lookup& lookup) const {
  if (!root_) return {std::nullopt, "empty formula"};
  return evaluate_node(*root_, lookup);
}

class FormulaParser {
 public:
  explicit FormulaParser(std::string_view text) : text_(text) {}

  FormulaParse run() {
    FormulaParse out;
    skip_space();
    if (pos_ == text_.size()) {
      out.error = {1, "empty formula"};
      return out;
    }
    Node root = expr(0);
    if (root && pos_ != text_.size()) fail(fmt::format("unexpected '{}'", text_[pos_]));
    if (error_) {
      out.error = *error_;
      return out;
    }
    Formula f;
    f.text_ = std::string(text_);
    f.names_ = names_;
    f.root_ = root;
    out.formula = std::move(f);
    return out;
  }

 private:
  void fail(std::string message) {
    if (!error_) error_ = FormulaError{pos_ + 1, std::move(message)};
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  std::string span(std::size_t begin) const {
    std::string s(text_.substr(begin, pos_ - begin));
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    return s;
  }
  Node binary(FormulaNode::Kind kind, Node l, Node r, std::size_t begin) {
    auto n = std::make_shared<FormulaNode>();
    n->kind = kind;
    n->left = std::move(l);
    n->right = std::move(r);
    n->text = span(begin);
    return n;
  }

  Node expr(int depth) {
    return left_associative(depth, &FormulaParser::term, '+', FormulaNode::Kind::add, '-',
                            FormulaNode::Kind::subtract);
  }

  Node term(int depth) {
    return left_associative(depth, &FormulaParser::factor, '*', FormulaNode::Kind::multiply, '/',
                            FormulaNode::Kind::divide);
  }

  // Operands read by `operand`, joined from the left by `first` or `second`.
  Node left_associative(int depth, Node (FormulaParser::*operand)(int), char first, FormulaNode::Kind first_kind,
                        char second, FormulaNode::Kind second_kind) {
    std::size_t begin = pos_;
    Node left = (this->*operand)(depth);
    while (left && pos_ < text_.size() && (text_[pos_] == first || text_[pos_] == second)) {
      auto kind = text_[pos_] == first ? first_kind : second_kind;
      ++pos_;
      skip_space();
      Node right = (this->*operand)(depth);
      if (!right) return nullptr;
      left = binary(kind, left, right, begin);
    }
    return left;
  }

  Node factor(int depth) {
    if (depth > kMaxDepth) {
      fail(fmt::format("nested more than {} levels deep", kMaxDepth));
      return nullptr;
    }
    if (pos_ == text_.size()) {
      fail("expected a number, a counter name or '(', got the end of the formula");
      return nullptr;
    }
    std::size_t begin = pos_;
    char c = text_[pos_];
    auto n = std::make_shared<FormulaNode>();
    if (c == '(') {
      ++pos_;
      skip_space();
      Node inner = expr(depth + 1);
      if (!inner) return nullptr;
      if (pos_ == text_.size() || text_[pos_] != ')') {
        fail(pos_ == text_.size() ? "missing ')' at the end of the formula"
                                  : fmt::format("expected ')', got '{}'", text_[pos_]));
        return nullptr;
      }
      ++pos_;
      skip_space();
      return inner;
    }
    if (c == '-') {
      ++pos_;
      skip_space();
      Node inner = factor(depth + 1);
      if (!inner) return nullptr;
      n->kind = FormulaNode::Kind::negate;
      n->left = inner;
      n->text = span(begin);
      return n;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      std::size_t end = pos_;
      while (end < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[end])) || text_[end] == '.')) ++end;
      if (end < text_.size() && (text_[end] == 'e' || text_[end] == 'E')) {
        std::size_t e = end + 1;
        if (e < text_.size() && (text_[e] == '+' || text_[e] == '-')) ++e;
        if (e < text_.size() && std::isdigit(static_cast<unsigned char>(text_[e]))) {
          end = e;
          while (end < text_.size() && std::isdigit(static_cast<unsigned char>(text_[end]))) ++end;
        }
      }
      double value = 0;
      auto [ptr, ec] = std::from_chars(text_.data() + pos_, text_.data() + end, value);
      if (ec != std::errc() || ptr != text_.data() + end || !std::isfinite(value)) {
        fail(fmt::format("bad number '{}'", text_.substr(pos_, end - pos_)));
        return nullptr;
      }
      pos_ = end;
      n->kind = FormulaNode::Kind::number;
      n->number = value;
      n->text = span(begin);
      skip_space();
      if (pos_ < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
        fail(fmt::format("expected an operator after the number, got '{}'", text_[pos_]));
        return nullptr;
      }
      return n;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t end = pos_;
      while (end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_')) ++end;
      n->kind = FormulaNode::Kind::name;
      n->name = std::string(text_.substr(pos_, end - pos_));
      pos_ = end;
      n->text = n->name;
      if (std::find(names_.begin(), names_.end(), n->name) == names_.end()) names_.push_back(n->name);
      skip_space();
      return n;
    }
    if (c == ')') {
      fail("unexpected ')'");
    } else {
      fail(fmt::format("expected a number, a counter name or '(', got '{}'", c));
    }
    return nullptr;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::vector<std::string> names_;
  std::optional<FormulaError> error_;
};

FormulaParse parse_formula(std::string_view text) { return FormulaParser(text).run(); }

}  // namespace harness
