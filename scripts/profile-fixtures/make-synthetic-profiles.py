#!/usr/bin/env python3
"""Writes the SYNTHETIC per-layer profile fixtures of fixtures/profiles/, one
per format, from each format's published description (the layouts the
tools' own sources write; docs/parts/roofline.md names them). The numbers
are made up so that every answer can be worked out on paper: the truth is
in fixtures/profiles/README.md and the tests that read these files. No
profiler ran and no device was measured.

    scripts/profile-fixtures/make-synthetic-profiles.py [OUT_DIR]

Deterministic: running it again writes the same bytes.
"""
import csv
import io
import json
import os
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "profiles")
NOTE = "SYNTHETIC: written by scripts/profile-fixtures/make-synthetic-profiles.py, not measured"


def write(name, text, newline="\n"):
    with open(os.path.join(OUT, name), "w", newline=newline) as f:
        f.write(text)


def onnxruntime():
    """ONNX Runtime ~1.8-1.13: per node fence_before, kernel_time (args with
    shapes and sizes as strings), fence_after; one model_run per Run(); one
    event per line in a bare array, ts/dur in microseconds."""
    cuda, cpu = "CUDAExecutionProvider", "CPUExecutionProvider"
    nodes = [  # name, op, provider, shapes in, shapes out, sizes (activation, parameter, output), dur per run
        ("conv", "Conv", cuda, [("float", [1, 3, 8, 8]), ("float", [4, 3, 3, 3]), ("float", [4])],
         [("float", [1, 4, 8, 8])], (768, 448, 1024), (100, 120)),
        ("copy_out", "MemcpyToHost", cpu, [("float", [1, 4, 8, 8])], [("float", [1, 4, 8, 8])], (1024, 0, 1024),
         (30, 30)),
        ("topk", "TopK", cpu, [("float", [1, 256]), ("int64", [1])], [("float", [1, 5]), ("int64", [1, 5])],
         (1032, 0, 60), (50, 70)),
        ("fc", "Gemm", cuda, [("float", [1, 256]), ("float", [256, 10]), ("float", [10])], [("float", [1, 10])],
         (1024, 10280, 40), (40, 40)),
        ("matmul", "MatMul", cuda, [("float", [2, 3, 4]), ("float", [4, 5])], [("float", [2, 3, 5])], (96, 80, 120),
         (10, 10)),
    ]
    starts = [[1000, 1105, 1140, 1200, 1240], [2000, 2125, 2160, 2230, 2275]]
    events = [{"cat": "Session", "pid": 7, "tid": 7, "dur": 500, "ts": 3, "ph": "X", "name": "model_loading_uri", "args": {}},
              {"cat": "Session", "pid": 7, "tid": 7, "dur": 400, "ts": 510, "ph": "X", "name": "session_initialization", "args": {}}]
    for run, base in enumerate((990, 1990)):
        events.append({"cat": "Session", "pid": 7, "tid": 7, "dur": 300, "ts": base, "ph": "X", "name": "model_run", "args": {}})
        for i, (name, op, provider, ins, outs, sizes, durs) in enumerate(nodes):
            ts = starts[run][i]
            events.append({"cat": "Node", "pid": 7, "tid": 7, "dur": 2, "ts": ts - 3, "ph": "X",
                           "name": name + "_fence_before", "args": {"op_name": op}})
            events.append({"cat": "Node", "pid": 7, "tid": 7, "dur": durs[run], "ts": ts, "ph": "X",
                           "name": name + "_kernel_time",
                           "args": {"op_name": op, "provider": provider, "node_index": str(i),
                                    "activation_size": str(sizes[0]), "parameter_size": str(sizes[1]),
                                    "output_size": str(sizes[2]),
                                    "input_type_shape": [{t: d} for t, d in ins],
                                    "output_type_shape": [{t: d} for t, d in outs],
                                    "thread_scheduling_stats": ""}})
            events.append({"cat": "Node", "pid": 7, "tid": 7, "dur": 1, "ts": ts + durs[run], "ph": "X",
                           "name": name + "_fence_after", "args": {"op_name": op}})
    events.sort(key=lambda e: e["ts"])
    lines = [json.dumps(e, separators=(",", ":")) for e in events]
    write("onnxruntime-synthetic.json", "[\n" + ",\n".join(lines) + "\n]\n")


def chrome_trace():
    """Trace Event Format, object form: X slices, a B/E pair, nesting, a
    tiled op seen twice, metadata and counter events that are no layers."""
    events = [
        {"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "HTP"}},
        {"name": "graph_execute", "cat": "graph", "ph": "X", "ts": 0, "dur": 1000, "pid": 1, "tid": 1},
        {"name": "conv_0", "cat": "Conv2d", "ph": "X", "ts": 10, "dur": 300, "pid": 1, "tid": 1,
         "args": {"Dominant Path Cycles": 300000}},
        {"name": "relu_0", "cat": "Relu", "ph": "B", "ts": 320, "pid": 1, "tid": 1},
        {"name": "vtcm", "ph": "C", "ts": 330, "pid": 1, "args": {"bytes": 4096}},
        {"name": "relu_0", "ph": "E", "ts": 400, "pid": 1, "tid": 1},
        {"name": "conv_1", "cat": "Conv2d", "ph": "X", "ts": 420, "dur": 500, "pid": 1, "tid": 1},
        {"name": "conv_1", "cat": "Conv2d", "ph": "X", "ts": 930, "dur": 50, "pid": 1, "tid": 1},
        {"name": "done", "ph": "i", "ts": 1000, "pid": 1, "tid": 1, "s": "t"},
    ]
    doc = {"traceEvents": events, "displayTimeUnit": "ns", "otherData": {"note": NOTE}}
    write("chrome-trace-synthetic.json", json.dumps(doc, indent=1) + "\n")


def tflite_field(value, width):
    return "\t" + str(value).rjust(width)


def tflite_table(title, rows, with_start=True):
    """The stats calculator's text table: each field after a tab, right-aligned
    to its width, 3 decimals; the name last."""
    out = ["=" * 30 + " " + title + " " + "=" * 30]
    header = tflite_field("[node type]", 24)
    if with_start:
        header += tflite_field("[start]", 17)
    header += (tflite_field("[first]", 9) + tflite_field("[avg ms]", 9) + tflite_field("[%]", 8) +
               tflite_field("[cdf%]", 8) + tflite_field("[mem KB]", 10) + tflite_field("[times called]", 9) + "\t[Name]")
    out.append(header)
    total = sum(r[3] * r[4] for r in rows)
    cdf = 0.0
    for node_type, start, first, avg, calls, name in rows:
        pct = 100.0 * avg * calls / total
        cdf += pct
        line = tflite_field(node_type, 24)
        if with_start:
            line += tflite_field("%.3f" % start, 17)
        line += (tflite_field("%.3f" % first, 9) + tflite_field("%.3f" % avg, 9) + tflite_field("%.3f" % pct, 7) + "%" +
                 tflite_field("%.3f" % cdf, 7) + "%" + tflite_field("%.3f" % 0.0, 10) + tflite_field(calls, 9) + "\t" + name)
        out.append(line)
    return "\n".join(out) + "\n\n"


TFLITE_ROWS = [  # node type, start ms, first ms, avg ms per call, calls per run, name
    ("TfLiteNnapiDelegate", 0.000, 1.200, 1.000, 1, "[conv_a, relu_a]:12"),
    ("AVERAGE_POOL_2D", 1.010, 0.210, 0.200, 1, "[pool]:13"),
    ("RESIZE_BILINEAR", 1.220, 0.160, 0.150, 2, "[resize]:14"),
    ("TfLiteNnapiDelegate", 1.530, 0.520, 0.500, 1, "[head]:15"),
]


def tflite():
    init = [("ModifyGraphWithDelegate", 0.0, 6.348, 6.348, 1, "ModifyGraphWithDelegate/0"),
            ("AllocateTensors", 6.4, 5.061, 5.061, 1, "AllocateTensors/0")]
    text = "# " + NOTE + "\n"
    text += "Profiling Info for Benchmark Initialization:\n" + tflite_table("Run Order", init)
    text += "Timings (microseconds): count=1 curr=11409\nMemory (bytes): count=0\n2 nodes observed\n\n\n\n"
    text += "Operator-wise Profiling Info for Regular Benchmark Runs:\n" + tflite_table("Run Order", TFLITE_ROWS)
    by_time = sorted(TFLITE_ROWS, key=lambda r: -r[3])
    text += tflite_table("Top by Computation Time", by_time)
    text += "Number of nodes executed: 4\n"
    text += "Timings (microseconds): count=50 first=2100 curr=2000 min=1990 max=2150 avg=2000 std=20\n"
    write("tflite-synthetic.txt", text)

    # The newer layout: spaces instead of tabs, no [start], XNNPACK's ops
    # listed one by one with names that hold spaces and commas.
    rows = [("Convolution (NHWC, QC8) IGEMM", 0.400, 0.400, 1, "Delegate/Convolution (NHWC, QC8) IGEMM:0"),
            ("Transpose (ND, X8)", 0.052, 0.050, 2, "Delegate/Transpose (ND, X8):1"),
            ("TFLite_Detection_PostProcess", 0.510, 0.500, 1, "[StatefulPartitionedCall:3, StatefulPartitionedCall:2]:266")]
    lines = ["INFO: Operator-wise Profiling Info for Regular Benchmark Runs:",
             "=" * 30 + " Run Order " + "=" * 30,
             "[node type]".rjust(48) + "[first]".rjust(17) + "[avg ms]".rjust(16) + "[%]".rjust(15) + "[cdf%]".rjust(16) +
             "[mem KB]".rjust(18) + "[times called]".rjust(22) + "  [Name]"]
    cdf = 0.0
    for node_type, first, avg, calls, name in rows:
        pct = 100.0 * avg * calls / 1.0
        cdf += pct
        lines.append(node_type.rjust(48) + ("%.3f" % first).rjust(17) + ("%.3f" % avg).rjust(16) +
                     ("%.3f%%" % pct).rjust(15) + ("%.3f%%" % cdf).rjust(16) + ("%.3f" % 0).rjust(18) +
                     str(calls).rjust(22) + "       " + name)
    write("tflite-xnnpack-synthetic.txt", "\n".join(lines) + "\n\n")

    # The CSV form of the regular runs' Run Order table.
    out = ["# " + NOTE, "Operator-wise Profiling Info for Regular Benchmark Runs:", "=" * 30 + " Run Order " + "=" * 30,
           "node type, start, first, avg_ms, %, cdf%, mem KB, times called, name"]
    cdf = 0.0
    for node_type, start, first, avg, calls, name in TFLITE_ROWS:
        pct = 100.0 * avg * calls / 2.0
        cdf += pct
        out.append("%s, %s, %s, %s, %s%%, %s%%, %s, %d, %s" % (node_type, start, first, avg, pct, cdf, 0, calls, name))
    write("tflite-synthetic.csv", "\n".join(out) + "\n\n")


def vela():
    """Vela's <network>_per-layer.csv: Python's csv writer (CRLF, quoting),
    the header again for each NPU subgraph, Network% twice."""
    header = ["TFLite_operator", "NNG Operator", "SRAM Usage", "Peak%", "Op Cycles", "Network%", "NPU", "SRAM AC",
              "DRAM AC", "OnFlash AC", "OffFlash AC", "MAC Count", "Network%", "Util%", "Name"]
    buf = io.StringIO()
    buf.write("# " + NOTE + "\r\n")
    w = csv.writer(buf)
    w.writerow(header)
    w.writerow(["CONV_2D", "Conv2DBias", 11936, 54.65201465201465, 7312.0, 62.61, 7312.0, 2000.0, 0.0, 0.0, 0.0,
                73008, 72.82, 3.9, "sequential/conv1/Relu;sequential/conv1/Conv2D"])
    w.writerow(["MAX_POOL_2D", "MaxPool", 10944, 50.10989010989011, 2992.0, 25.62, 1330.0, 2992.0, 0.0, 0.0, 0.0,
                6912, 6.89, 0.9, "sequential/max_pooling2d/MaxPool"])
    w.writerow(header)
    w.writerow(["FULLY_CONNECTED", "FullyConnected", 4096, 18.75, 1375.0, 11.77, 1375.0, 500.0, 0.0, 0.0, 0.0,
                20480, 20.29, 11.6, "dense, final"])
    write("vela-synthetic_per-layer.csv", buf.getvalue(), newline="")


def rknn():
    """RKNN-Toolkit2's perf detail table: space-separated, "\\" for empty
    cells, the full name last, dashes around, the totals after."""
    cols = ["ID", "OpType", "DataType", "Target", "InputShape", "OutputShape", "Cycles(DDR/NPU/Total)", "Time(us)",
            "MacUsage(%)", "WorkLoad(0/1/2)", "RW(KB)", "FullName"]
    widths = [5, 19, 9, 7, 41, 23, 25, 13, 21, 21, 13, 0]
    rows = [
        [1, "InputOperator", "UINT8", "CPU", "\\", "(1,3,8,8)", "0/0/0", 7, "\\", "0.0%/0.0%/0.0%", 0, "InputOperator:images"],
        [2, "ConvRelu", "INT8", "NPU", "(1,3,8,8),(4,3,3,3),(4)", "(1,4,8,8)", "1000/2000/2000", 25, "1.20/0.00/0.00",
         "100.0%/0.0%/0.0%", 3, "Conv:/model/conv1/Conv"],
        [3, "Reshape", "INT8", "CPU", "(1,4,8,8)", "(1,256)", "0/0/0", 40, "\\", "0.0%/0.0%/0.0%", 1, "Reshape:/model/flatten"],
        [4, "MatMul", "INT8", "NPU", "(1,256),(256,10)", "(1,10)", "500/600/600", 20, "0.50/0.00/0.00",
         "100.0%/0.0%/0.0%", 4, "MatMul:/model/fc"],
        [5, "OutputOperator", "INT8", "CPU", "(1,10)", "\\", "0/0/0", 8, "\\", "0.0%/0.0%/0.0%", 0, "OutputOperator:output"],
    ]
    fmt_row = lambda r: "".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
    rule = "-" * 200
    lines = ["# " + NOTE, "=" * 200, " " * 40 + "Network Layer Information Table", "=" * 200, fmt_row(cols), rule]
    lines += [fmt_row(r) for r in rows]
    lines += [rule, "Total Operator Elapsed Per Frame Time(us): 100", "Total Memory Read/Write Per Frame Size(KB): 8",
              rule, "-" * 99, " " * 33 + "Operator Time Consuming Ranking Table", "-" * 99,
              "OpType             CallNumber   CPUTime(us)  GPUTime(us)  NPUTime(us)  TotalTime(us)  TimeRatio(%)",
              "-" * 99, "Reshape            1            40           0            0            40             40.00%",
              "ConvRelu           1            0            0            25           25             25.00%",
              "-" * 99, "Total                           55           0            45           100", "-" * 99]
    write("rknn-synthetic.txt", "\n".join(lines) + "\n")


if __name__ == "__main__":
    onnxruntime()
    chrome_trace()
    tflite()
    vela()
    rknn()
