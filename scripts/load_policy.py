#!/usr/bin/python3
"""Load a hyperctl policy in PyTorch, with no hyperctl code.

A policy is two files: NAME.safetensors (the weights) and NAME.json (the
sidecar). This script parses the safetensors file itself (8-byte
little-endian header length, JSON header, raw little-endian data), checks the
layout and the sidecar's SHA-256, loads the tensors into a module shaped like
CleanRL's ppo_continuous_action Agent with load_state_dict(strict=True), and
acts deterministically: the actor's mean on the normalised observation,
clipped to the action bounds.

Usage (Debian's interpreter, which sees python3-torch and python3-numpy):

    /usr/bin/python3 scripts/load_policy.py runs/r/policy-best             # describe
    /usr/bin/python3 scripts/load_policy.py runs/r/policy-best --obs o.json # act

--obs reads a JSON list of observations and prints {"actions": [...]}.
"""

import argparse
import hashlib
import json
import struct
import sys

import numpy as np
import torch
from torch import nn

DTYPES = {"F32": np.float32, "F64": np.float64, "F16": np.float16}


def read_safetensors(path):
    """Returns ({name: np.ndarray}, metadata) after checking the layout."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise ValueError(f"{path}: shorter than the 8-byte header length")
    (n,) = struct.unpack("<Q", raw[:8])
    if 8 + n > len(raw):
        raise ValueError(f"{path}: header length {n} runs past the end of the file")
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    data = raw[8 + n:]
    meta = header.pop("__metadata__", {})
    tensors, spans = {}, []
    for name, info in header.items():
        if set(info) != {"dtype", "shape", "data_offsets"}:
            raise ValueError(f"{path}: tensor {name}: keys {sorted(info)}")
        dt = np.dtype(DTYPES[info["dtype"]]).newbyteorder("<")
        begin, end = info["data_offsets"]
        count = int(np.prod(info["shape"], dtype=np.int64))
        if end - begin != count * dt.itemsize:
            raise ValueError(f"{path}: tensor {name}: {end - begin} bytes for shape {info['shape']}")
        tensors[name] = np.frombuffer(data[begin:end], dtype=dt).reshape(info["shape"]).astype(dt.newbyteorder("="))
        spans.append((begin, end))
    # The data must be covered exactly, without holes or overlaps.
    pos = 0
    for begin, end in sorted(spans):
        if begin != pos:
            raise ValueError(f"{path}: data hole or overlap at byte {pos}")
        pos = end
    if pos != len(data):
        raise ValueError(f"{path}: {len(data) - pos} bytes after the last tensor")
    return tensors, meta


def mlp(widths, activation):
    layers = []
    for k in range(len(widths) - 1):
        layers.append(nn.Linear(widths[k], widths[k + 1]))
        if k < len(widths) - 2:
            layers.append(nn.Tanh() if activation == "tanh" else nn.ReLU())
    return nn.Sequential(*layers)


class Agent(nn.Module):
    """CleanRL's ppo_continuous_action Agent, sized from the sidecar."""

    def __init__(self, arch, act_size):
        super().__init__()
        self.critic = mlp(arch["critic"], arch["activation"])
        self.actor_mean = mlp(arch["actor"], arch["activation"])
        self.actor_logstd = nn.Parameter(torch.zeros(1, act_size))


class Policy:
    def __init__(self, prefix):
        with open(prefix + ".json") as f:
            self.meta = json.load(f)
        m = self.meta
        if m.get("format") != "hyperctl-ppo-policy":
            raise ValueError(f"{prefix}.json: not a hyperctl policy sidecar")
        wpath = prefix + ".safetensors"
        with open(wpath, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        if digest != m["weights_sha256"]:
            raise ValueError(f"{wpath}: SHA-256 {digest} differs from the sidecar's {m['weights_sha256']}")
        tensors, _ = read_safetensors(wpath)
        self.agent = Agent(m["architecture"], m["act_size"])
        self.agent.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in tensors.items()}, strict=True)
        self.agent.eval()
        n = m["obs_norm"]
        self.norm = n["enabled"]
        if self.norm:
            self.mean = np.asarray(n["mean"], dtype=np.float64)
            self.std = np.sqrt(np.asarray(n["var"], dtype=np.float64) + n["epsilon"])
            self.clip = n["clip"]
        self.low = np.asarray(m["action_low"], dtype=np.float64)
        self.high = np.asarray(m["action_high"], dtype=np.float64)

    def act(self, obs):
        """Deterministic actions for a batch of raw observations [B, obs]."""
        x = np.asarray(obs, dtype=np.float64)
        if self.norm:
            x = np.clip((x - self.mean) / self.std, -self.clip, self.clip)
        with torch.no_grad():
            mu = self.agent.actor_mean(torch.from_numpy(x.astype(np.float32))).numpy()
        return np.clip(mu.astype(np.float64), self.low, self.high)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("prefix", help="policy path without extension, e.g. runs/r/policy-best")
    ap.add_argument("--obs", help="JSON file with a list of observations; prints the actions as JSON")
    args = ap.parse_args()
    p = Policy(args.prefix)
    if args.obs:
        with open(args.obs) as f:
            obs = json.load(f)
        json.dump({"actions": p.act(obs).tolist()}, sys.stdout)
        sys.stdout.write("\n")
        return
    m = p.meta
    print(f"{m['env']}: actor {m['architecture']['actor']}, {m['architecture']['activation']}; "
          f"iteration {m['iteration']}, frames {m['frames']}, eval return {m.get('eval_return')}")


if __name__ == "__main__":
    main()
