#include <iostream>

#include "harness/cli/commands.h"

int main(int argc, char** argv) { return harness::run_cli(argc, argv, std::cout, std::cerr); }
