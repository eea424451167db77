"""Helpers for tests/gpu/guard_h200.sh (runs on the GPU machine, never in CI).

  work SECS               keep the GPU busy with bf16 matrix products for SECS seconds
  intrude SECS READY      the same, after writing "<pid> <epoch seconds>" to READY once its
                          CUDA context exists (the moment NVML can list it)
  stamp                   copy stdin to stdout, each line prefixed with the epoch seconds
                          at which it arrived (to time the guard's notes below 1 s)
"""
import os
import sys
import time


def busy(seconds, ready_path=None):
    import torch

    x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    torch.cuda.synchronize()
    if ready_path:
        with open(ready_path + ".tmp", "w") as f:
            f.write(f"{os.getpid()} {time.time():.3f}\n")
        os.rename(ready_path + ".tmp", ready_path)
    end = time.time() + seconds
    while time.time() < end:
        for _ in range(20):
            x = (x @ x).clamp_(-1, 1)
        torch.cuda.synchronize()
    print(f"{sys.argv[1]}: {seconds}s of matrix products done", flush=True)


def stamp():
    for line in sys.stdin:
        sys.stdout.write(f"{time.time():.3f} {line}")
        sys.stdout.flush()


def main():
    mode = sys.argv[1]
    if mode == "work":
        busy(float(sys.argv[2]))
    elif mode == "intrude":
        busy(float(sys.argv[2]), sys.argv[3])
    elif mode == "stamp":
        stamp()
    else:
        sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
