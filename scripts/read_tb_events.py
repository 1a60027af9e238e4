#!/usr/bin/python3
"""Decode TensorBoard event files with TensorBoard's own definitions.

Independent of hyperctl: it compiles TensorBoard's .proto files (from a
TensorBoard source tree, e.g. ../shared/reference/tensorboard) with protoc
into a temporary folder, reads each file's TFRecord framing itself,
verifies both masked CRC-32C of every record (a pure-Python Castagnoli
CRC), decodes each record as TensorBoard's Event, and prints JSON:

    {"files": [{"path": ..., "records": N, "events": [
        {"step": S, "wall_time": T, "file_version": ..., "session_log": ...,
         "scalars": {tag: value}}]}]}

Exit status 1 on any CRC mismatch, torn record or undecodable event.

Usage (Debian's interpreter, which sees python3-protobuf):

    /usr/bin/python3 scripts/read_tb_events.py --tensorboard-src ../shared/reference/tensorboard FILE...
"""

import argparse
import glob
import json
import os
import struct
import subprocess
import sys
import tempfile


def crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


TABLE = crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked_crc(data):
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def records(path):
    with open(path, "rb") as f:
        raw = f.read()
    pos = 0
    while pos < len(raw):
        if pos + 12 > len(raw):
            raise ValueError(f"{path}: torn record header at byte {pos}")
        header = raw[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        (hcrc,) = struct.unpack("<I", raw[pos + 8:pos + 12])
        if hcrc != masked_crc(header):
            raise ValueError(f"{path}: length CRC mismatch at byte {pos}")
        end = pos + 12 + length + 4
        if end > len(raw):
            raise ValueError(f"{path}: torn record at byte {pos}")
        data = raw[pos + 12:pos + 12 + length]
        (dcrc,) = struct.unpack("<I", raw[end - 4:end])
        if dcrc != masked_crc(data):
            raise ValueError(f"{path}: data CRC mismatch at byte {pos}")
        yield data
        pos = end


def compile_protos(src, out):
    protos = sorted(glob.glob(os.path.join(src, "tensorboard", "compat", "proto", "*.proto")))
    if not protos:
        raise SystemExit(f"no TensorBoard .proto files under {src}/tensorboard/compat/proto")
    subprocess.run(["protoc", "-I", src, "--python_out", out] + protos, check=True)
    sys.path.insert(0, out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tensorboard-src", required=True, help="root of a TensorBoard source tree (holds tensorboard/compat/proto)")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as out:
        compile_protos(args.tensorboard_src, out)
        from tensorboard.compat.proto import event_pb2  # noqa: E402  (generated above)

        result = {"files": []}
        for path in args.files:
            events = []
            n = 0
            try:
                for data in records(path):
                    n += 1
                    ev = event_pb2.Event()
                    ev.ParseFromString(data)
                    # Reject bytes TensorBoard's Event does not define: they
                    # would be dropped here and the length would shrink.
                    ev.DiscardUnknownFields()
                    if len(ev.SerializeToString()) != len(data):
                        raise ValueError(f"{path}: record {n} has fields TensorBoard's Event does not define")
                    e = {"step": ev.step, "wall_time": ev.wall_time}
                    what = ev.WhichOneof("what")
                    if what == "file_version":
                        e["file_version"] = ev.file_version
                    elif what == "session_log":
                        e["session_log"] = event_pb2.SessionLog.SessionStatus.Name(ev.session_log.status)
                    elif what == "summary":
                        e["scalars"] = {}
                        for v in ev.summary.value:
                            if v.WhichOneof("value") != "simple_value":
                                raise ValueError(f"{path}: record {n}: tag {v.tag} is not a simple_value")
                            e["scalars"][v.tag] = v.simple_value
                    else:
                        raise ValueError(f"{path}: record {n}: unexpected event kind {what}")
                    events.append(e)
            except ValueError as err:
                print(err, file=sys.stderr)
                sys.exit(1)
            result["files"].append({"path": path, "records": n, "events": events})
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
