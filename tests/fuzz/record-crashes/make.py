#!/usr/bin/env python3
"""Writes the reproducers of README.md as one-rank records (rank-000000.vlog
files with a valid trailer), numbering the opcodes, sources and packet
kinds as vaced/src/record/log_format.h and vaced/include/vaced.h do now,
so that they follow a renumbering.

    python3 tests/fuzz/record-crashes/make.py [OUTDIR]    default: next to this file

Each NAME.vlog reproduces with the fuzzer (build/fuzz/fuzz_record NAME.vlog,
tests/fuzz/run.sh builds it) or, without sanitizers, with
    mkdir d && cp NAME.vlog d/rank-000000.vlog && vaced/tools/vaced replay d --target paper-16"""
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def enum(text, name):
    """{NAME: value} of a C enum's members, as the compiler numbers them."""
    body = re.search(r"enum %s\s*\{(.*?)\};" % name, text, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    values, nxt = {}, 0
    for item in (i.strip() for i in body.split(",")):
        if not item:
            continue
        m = re.match(r"(\w+)\s*(?:=\s*(\w+))?$", item)
        key, val = m.group(1), m.group(2)
        nxt = (int(val, 0) if re.match(r"\d|0x", val) else values[val]) if val else nxt
        values[key] = nxt
        nxt += 1
    return values


with open(os.path.join(ROOT, "vaced", "src", "record", "log_format.h")) as f:
    FMT = f.read()
with open(os.path.join(ROOT, "vaced", "include", "vaced.h")) as f:
    API = f.read()
OP = {k[len("VACED_OP_"):]: v for k, v in enum(FMT, "vaced_log_op").items()}
SRC = {k[len("VACED_SRC_"):]: v for k, v in enum(FMT, "vaced_log_src").items()}
KIND = {k[len("VACED_PKT_"):]: v for k, v in enum(API, "vaced_pkt_kind").items()}
VERSION = int(re.search(r"#define VACED_LOG_VERSION (\d+)", FMT).group(1))


def leb(v):
    out = bytearray()
    while True:
        b, v = v & 0x7f, v >> 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def zigzag(v):
    return leb((v << 1) ^ (v >> 63) if v < 0 else v << 1)


def ev(op, *args):
    return (op, bytes([OP[op]]) + b"".join(args))


def record(events, ranks=1, flags=0, count_delta=0):
    """A sealed one-rank record: header, events, END, count, FNV-1a 64 of
    everything from the header through END."""
    head = b"VACEDLOG" + struct.pack("<IIIIQQH", VERSION, 0, ranks, flags, 131072, 0, 0)
    body = b"".join(e[1] for e in events) + bytes([OP["TRAILER"]])
    data, h = head + body, 0xcbf29ce484222325      # log_format.h: vaced_log_hash
    n = len(data) // 8 * 8
    for (w,) in struct.iter_unpack("<Q", data[:n]):
        h = ((h ^ w) * 0x100000001b3) & 0xffffffffffffffff
    for b in data[n:]:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return head + body + leb(len(events) + count_delta) + struct.pack("<Q", h)


BIG = 2**64 - 1
ACT = [ev("BEGIN"), ev("SEGMENT", leb(1000000))]           # 1 us of computation, then a call
CLOSE = [ev("END_ACT"), ev("CLOSE", leb(0))]
FIN = [ev("SIM_END"), ev("SEGMENT", leb(0))]

CASES = {
    # a send to itself of 2^55 bytes: the arrival stamp + the transfer time overflow
    "huge-bytes-send-stamp": [ev("PKT_SENT", zigzag(0), leb(KIND["SELF"]), leb(2**55))] + FIN,
    # eager DATA of 2^64-1 bytes after 1 us: *tr = ts + copy (copy saturated at INT64_MAX)
    "huge-bytes-send-copy": ACT + [ev("PKT_SENT", zigzag(0), leb(KIND["EAGER"]), leb(BIG))] + CLOSE + FIN,
    # a rendezvous RTS of 2^64-1 bytes: leave = ts + copy
    "huge-bytes-send-leave": ACT + [ev("PKT_SENT", zigzag(0), leb(KIND["RTS"]), leb(BIG))] + CLOSE + FIN,
    # a send to self arrives with 2^64-1 bytes: m->done = ta + copy
    "huge-bytes-self-arrived": ACT + [ev("MSG_INIT"), ev("ARRIVED", leb(1), leb(KIND["SELF"]),
                                      leb(SRC["NOW"]), leb(BIG))] + CLOSE + FIN,
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else HERE
    os.makedirs(out, exist_ok=True)
    files = {name: record(evs) for name, evs in CASES.items()}
    # rank 0 says the job has 2097154 ranks: the replay allocates for all of
    # them before it looks for rank-000001.vlog
    files["rank-count-2097154"] = record(FIN, ranks=0x200002)
    # 0xfffffffc ranks: -4 as an int, a calloc of -4 elements
    files["rank-count-negative"] = record(FIN, ranks=0xfffffffc)
    # accepted with exit 0: a compute segment of 2^63 + 5 ps, negative as a
    # vaced_time_t, gives a negative prediction
    files["silent-negative-segment"] = record([ev("BEGIN"), ev("SEGMENT", leb(2**63 + 5))] + CLOSE + FIN)
    # refusals without "offset N" (not crashes): a trailer counting one event
    # too many; a parked response the model fires that the record never fired;
    # a packet from itself that was never sent
    files["message-trailer-count"] = record(FIN, count_delta=1)
    files["message-fired-not-recorded"] = record(ACT + [ev("DEFER", zigzag(0), leb(SRC["NOW"]))] + CLOSE + FIN)
    files["message-stall"] = record(ACT + [ev("PKT_RECV", zigzag(0), leb(KIND["EAGER"]), leb(8), leb(1))] +
                                    CLOSE + FIN)
    for name, data in files.items():
        with open(os.path.join(out, name + ".vlog"), "wb") as f:
            f.write(data)
        print(os.path.join(out, name + ".vlog"), len(data), "bytes")


main()
