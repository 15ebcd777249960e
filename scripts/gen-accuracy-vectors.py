#!/usr/bin/env python3
"""Writes the test tensors of level 5 (layer-wise accuracy) and their float64
NumPy reference metrics, and the synthetic model fixture.

    scripts/gen-accuracy-vectors.py            # both
    scripts/gen-accuracy-vectors.py --vectors  # tests/data/accuracy/ only
    scripts/gen-accuracy-vectors.py --fixture  # fixtures/accuracy/ only

tests/data/accuracy/
  ref/<case>.npy, dev/<case>.{npy,bin+json,npy+json}   one case per layer name
  ref.npz (stored, np.savez), dev.npz (deflated, np.savez_compressed)
  expected.json   per case: the metrics computed here in float64, sums by
                  math.fsum (correctly rounded), "+inf" for infinities and
                  null (with a reason) for the figures harness leaves out
fixtures/accuracy/tinynet/   a small detector-like model's dumps (synthetic)

The tensors are deterministic (fixed seeds); only the ZIP headers of the .npz
archives carry their write time.
Definitions match docs/parts/accuracy.md.
"""
import argparse
import json
import math
import os
import shutil

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def metrics(ref, dev):
    """The metrics over the pairs where both values are finite."""
    r = np.asarray(ref, dtype=np.float64).ravel()
    d = np.asarray(dev, dtype=np.float64).ravel()
    out = {
        "elements": int(r.size),
        "reference_nan": int(np.isnan(r).sum()),
        "reference_inf": int(np.isinf(r).sum()),
        "device_nan": int(np.isnan(d).sum()),
        "device_inf": int(np.isinf(d).sum()),
    }
    keep = np.isfinite(r) & np.isfinite(d)
    r, d = r[keep], d[keep]
    n = r.size
    out["compared"] = int(n)
    e = r - d
    rr = math.fsum(r * r)
    dd = math.fsum(d * d)
    rd = math.fsum(r * d)
    ee = math.fsum(e * e)
    ae = math.fsum(np.abs(e))
    out["max_abs_error"] = float(np.max(np.abs(e)))
    out["mean_abs_error"] = ae / n
    if rr == 0 and dd == 0:
        out["cosine"] = 1.0
    elif rr == 0 or dd == 0:
        out["cosine"] = None
    else:
        out["cosine"] = rd / (math.sqrt(rr) * math.sqrt(dd))
    peak = float(r.max() - r.min())
    out["psnr_peak"] = peak
    if ee == 0:
        out["psnr_db"] = "+inf"
    elif peak == 0:
        out["psnr_db"] = None
    else:
        out["psnr_db"] = 10 * math.log10(peak * peak / (ee / n))
    if ee == 0:
        out["sqnr_db"] = "+inf"
    elif rr == 0:
        out["sqnr_db"] = None
    else:
        out["sqnr_db"] = 10 * math.log10(rr / ee)
    if ee == 0:
        out["relative_l2"] = 0.0
    elif rr == 0:
        out["relative_l2"] = None
    else:
        out["relative_l2"] = math.sqrt(ee / rr)
    return out


def bf16_bits(x):
    """float32 -> bfloat16 bits, round to nearest even."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def write_sidecar(path, **keys):
    with open(path, "w") as f:
        json.dump(keys, f, indent=1, sort_keys=True)
        f.write("\n")


def quantize(x, scale, zp, lo, hi, axis=None):
    x = np.asarray(x, dtype=np.float64)
    if axis is not None:
        shape = [1] * x.ndim
        shape[axis] = -1
        scale = np.asarray(scale).reshape(shape)
        zp = np.asarray(zp).reshape(shape)
    q = np.clip(np.round(x / scale) + zp, lo, hi)
    return q, scale * (q - zp)


def vectors():
    out = os.path.join(ROOT, "tests", "data", "accuracy")
    shutil.rmtree(out, ignore_errors=True)
    ref_dir, dev_dir = os.path.join(out, "ref"), os.path.join(out, "dev")
    os.makedirs(ref_dir)
    os.makedirs(dev_dir)
    rng = np.random.default_rng(17)
    expected = {}

    def pair(name, ref, dev_value):
        np.save(os.path.join(ref_dir, name + ".npy"), ref.astype(np.float32))
        expected[name] = metrics(ref.astype(np.float32), dev_value)

    # random: a float32 device output with small noise
    ref = rng.standard_normal((4, 8, 16)).astype(np.float32)
    dev = (ref + 0.01 * rng.standard_normal(ref.shape)).astype(np.float32)
    np.save(os.path.join(dev_dir, "random.npy"), dev)
    pair("random", ref, dev)

    # identical: PSNR and SQNR +inf, relative L2 0
    ref = rng.uniform(-3, 3, 500).astype(np.float32)
    np.save(os.path.join(dev_dir, "identical.npy"), ref)
    pair("identical", ref, ref)

    # constant reference: PSNR peak 0, PSNR unavailable
    ref = np.full((8, 8), 2.5, dtype=np.float32)
    dev = (ref + 0.001 * rng.standard_normal(ref.shape)).astype(np.float32)
    np.save(os.path.join(dev_dir, "constant.npy"), dev)
    pair("constant", ref, dev)

    # zero: both all zeros, cosine 1 by definition
    ref = np.zeros(100, dtype=np.float32)
    np.save(os.path.join(dev_dir, "zero.npy"), ref)
    pair("zero", ref, ref)

    # zero reference, noisy device: cosine, PSNR, SQNR, relative L2 unavailable
    ref = np.zeros(64, dtype=np.float32)
    dev = (1e-3 * rng.standard_normal(64)).astype(np.float32)
    np.save(os.path.join(dev_dir, "zero_ref.npy"), dev)
    pair("zero_ref", ref, dev)

    # outliers: a wide dynamic range, big-endian float32 on disk
    ref = rng.standard_normal(2000).astype(np.float32)
    ref[[3, 700, 1999]] = [250.0, -180.0, 400.0]
    dev = (ref + 0.05 * rng.standard_normal(ref.shape)).astype(np.float32)
    dev[700] = -150.0
    np.save(os.path.join(dev_dir, "outliers.npy"), dev.astype(">f4"))
    pair("outliers", ref, dev)

    # float16 device output
    ref = rng.standard_normal((2, 3, 50)).astype(np.float32)
    dev = ref.astype(np.float16)
    np.save(os.path.join(dev_dir, "half.npy"), dev)
    pair("half", ref, dev.astype(np.float64))

    # bfloat16 device output: raw, big-endian, with a sidecar
    ref = rng.standard_normal((3, 40)).astype(np.float32)
    bits = bf16_bits(ref)
    bits.astype(">u2").tofile(os.path.join(dev_dir, "brain.bf16"))
    write_sidecar(os.path.join(dev_dir, "brain.json"), data="brain.bf16", shape=[3, 40], dtype="bfloat16",
                  byte_order="big")
    pair("brain", ref, bf16_value(bits))

    # int8 per tensor: raw file and sidecar with scale and zero point
    ref = rng.uniform(-1, 2, (6, 20)).astype(np.float32)
    scale, zp = 3.0 / 255, -43
    q, deq = quantize(ref, scale, zp, -128, 127)
    q.astype(np.int8).tofile(os.path.join(dev_dir, "int8_tensor.bin"))
    write_sidecar(os.path.join(dev_dir, "int8_tensor.json"), shape=[6, 20], dtype="int8", scale=scale,
                  zero_point=zp)
    pair("int8_tensor", ref, deq)

    # int8 per channel (axis 1, NCHW): an .npy file with a sidecar adding its quantization
    ref = (rng.standard_normal((2, 4, 5, 5)) * np.array([0.1, 1, 5, 20]).reshape(1, 4, 1, 1)).astype(np.float32)
    scales = [float(s) for s in np.abs(ref).max(axis=(0, 2, 3)) / 127]
    q, deq = quantize(ref, np.array(scales), np.zeros(4), -127, 127, axis=1)
    np.save(os.path.join(dev_dir, "int8_channel.npy"), q.astype(np.int8))
    write_sidecar(os.path.join(dev_dir, "int8_channel.json"), data="int8_channel.npy", scale=scales,
                  zero_point=[0, 0, 0, 0], axis=1)
    pair("int8_channel", ref, deq)

    # uint8 with a zero point, last axis per channel (axis -1)
    ref = rng.uniform(0, 6, (10, 3)).astype(np.float32)
    scales, zps = [6 / 255, 5 / 255, 4 / 255], [0, 3, 10]
    q, deq = quantize(ref, np.array(scales), np.array(zps), 0, 255, axis=-1)
    q.astype(np.uint8).tofile(os.path.join(dev_dir, "uint8_channel.raw"))
    write_sidecar(os.path.join(dev_dir, "uint8_channel.json"), data="uint8_channel.raw", shape=[10, 3],
                  dtype="uint8", scale=scales, zero_point=zps, axis=-1)
    pair("uint8_channel", ref, deq)

    # int16 and int32 (int32 big-endian) quantized per tensor
    ref = rng.standard_normal(300).astype(np.float32)
    q, deq = quantize(ref, 1 / 4096, 0, -32768, 32767)
    np.save(os.path.join(dev_dir, "int16_tensor.npy"), q.astype(np.int16))
    write_sidecar(os.path.join(dev_dir, "int16_tensor.json"), data="int16_tensor.npy", scale=1 / 4096)
    pair("int16_tensor", ref, deq)
    ref = rng.standard_normal(300).astype(np.float32)
    q, deq = quantize(ref, 2.0 ** -20, 7, -2 ** 31, 2 ** 31 - 1)
    q.astype(">i4").tofile(os.path.join(dev_dir, "int32_tensor.bin"))
    write_sidecar(os.path.join(dev_dir, "int32_tensor.json"), shape=[300], dtype="int32", byte_order="big",
                  scale=2.0 ** -20, zero_point=7)
    pair("int32_tensor", ref, deq)

    # NaN and Inf in the device output: counted, left out of the metrics
    ref = rng.standard_normal(1000).astype(np.float32)
    dev = (ref + 0.02 * rng.standard_normal(1000)).astype(np.float32)
    dev[[10, 500]] = np.nan
    dev[999] = np.inf
    np.save(os.path.join(dev_dir, "device_nan.npy"), dev)
    pair("device_nan", ref, dev)

    # unpaired layers on each side
    np.save(os.path.join(ref_dir, "only_in_reference.npy"), np.ones(3, dtype=np.float32))
    np.save(os.path.join(dev_dir, "only_in_device.npy"), np.ones(3, dtype=np.float32))

    # npz: stored reference, deflated device (float16 and float32 entries)
    a = rng.standard_normal((8, 32)).astype(np.float32)
    b = rng.standard_normal(777).astype(np.float32)
    da = (a + 0.003 * rng.standard_normal(a.shape)).astype(np.float32)
    db = b.astype(np.float16)
    np.savez(os.path.join(out, "ref.npz"), layer_a=a, layer_b=b)
    np.savez_compressed(os.path.join(out, "dev.npz"), layer_a=da, layer_b=db)
    expected_npz = {"layer_a": metrics(a, da), "layer_b": metrics(b, db.astype(np.float64))}

    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump({"generator": "scripts/gen-accuracy-vectors.py", "directory": expected, "npz": expected_npz,
                   "unpaired": {"reference_only": ["only_in_reference"], "device_only": ["only_in_device"]}},
                  f, indent=1, sort_keys=True)
        f.write("\n")


def fixture():
    """A small detector-like model: backbone convolutions, a wide-range head
    and a softmax. The device side is a simulated per-tensor INT8 model
    (quantize-dequantize with calibrated scales), int8 dumps with sidecars;
    the 'head_box' layer's outliers and the softmax's narrow range make them
    the worst layers, as seed 001 section 6.2 describes."""
    out = os.path.join(ROOT, "fixtures", "accuracy", "tinynet")
    shutil.rmtree(out, ignore_errors=True)
    ref_dir, dev_dir, iso_dir = (os.path.join(out, d) for d in ("reference", "device", "device-isolated"))
    for d in (ref_dir, dev_dir, iso_dir):
        os.makedirs(d)
    rng = np.random.default_rng(2026)
    layers = {}
    x = rng.standard_normal((1, 8, 16, 16)).astype(np.float32)
    layers["conv1"] = np.maximum(x * 1.5 + 0.2, 0)
    layers["conv2"] = np.maximum(layers["conv1"][:, :, ::2, ::2] * 0.8 + rng.normal(0, 0.3, (1, 8, 8, 8)), 0)
    layers["conv3"] = layers["conv2"] * 0.5 + rng.normal(0, 0.5, (1, 8, 8, 8))
    head = rng.normal(0, 1, (1, 4, 8, 8))
    head[0, 2, 3, 3] = 120.0
    head[0, 1, 5, 6] = -90.0
    layers["head_box"] = head
    logits = rng.normal(0, 2, (1, 10))
    layers["softmax"] = np.exp(logits) / np.exp(logits).sum()
    # the device toolchain's names for the same layers (layer map)
    device_names = {"conv1": "Conv_0", "conv2": "Conv_3", "conv3": "Conv_6", "head_box": "Conv_9",
                    "softmax": "Softmax_12"}
    with open(os.path.join(out, "layer-map.txt"), "w") as f:
        f.write("# reference layer   device layer (synthetic toolchain names)\n")
        for k, v in device_names.items():
            f.write(f"{k} {v}\n")
    for k, (name, ref) in enumerate(layers.items()):
        ref = ref.astype(np.float32)
        np.save(os.path.join(ref_dir, name + ".npy"), ref)
        lo, hi = float(ref.min()), float(ref.max())
        scale = (hi - lo) / 255 if hi > lo else 1.0
        zp = int(round(-128 - lo / scale))
        dn = device_names[name]
        # isolated: the layer's own quantization error
        q, _ = quantize(ref, scale, zp, -128, 127)
        q.astype(np.int8).tofile(os.path.join(iso_dir, dn + ".bin"))
        write_sidecar(os.path.join(iso_dir, dn + ".json"), name=dn, data=dn + ".bin", shape=list(ref.shape),
                      dtype="int8", scale=scale, zero_point=zp)
        # cumulative: the earlier layers' errors carried along; the softmax
        # exponentiates the error of its (quantized) logits
        if name == "softmax":
            noisy_logits = logits + rng.normal(0, 0.25, logits.shape)
            noisy = np.exp(noisy_logits) / np.exp(noisy_logits).sum()
        else:
            noisy = ref + rng.normal(0, 0.3 * scale * (k + 1), ref.shape)
        q, _ = quantize(noisy, scale, zp, -128, 127)
        q.astype(np.int8).tofile(os.path.join(dev_dir, dn + ".bin"))
        write_sidecar(os.path.join(dev_dir, dn + ".json"), name=dn, data=dn + ".bin", shape=list(ref.shape),
                      dtype="int8", scale=scale, zero_point=zp)
    # level 1's per-layer profile of the same model (time per layer), so the
    # report can set the FP16-fallback candidates beside their latency share
    with open(os.path.join(out, "layer-profile.csv"), "w") as f:
        f.write("layer,op,time_us,flops,bytes\n")
        for name, t, flops, b in (("conv1", 310, 589824, 24576), ("conv2", 180, 73728, 6144),
                                 ("conv3", 150, 73728, 4096), ("head_box", 95, 16384, 3072),
                                 ("softmax", 12, 0, 80)):
            f.write(f"{name},{'softmax' if name == 'softmax' else 'conv'},{t},{flops},{b}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vectors", action="store_true")
    ap.add_argument("--fixture", action="store_true")
    a = ap.parse_args()
    both = not a.vectors and not a.fixture
    if a.vectors or both:
        vectors()
    if a.fixture or both:
        fixture()


if __name__ == "__main__":
    main()
