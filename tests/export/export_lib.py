"""What the export tests share: rocmtunectl on a tree, run as a script would, without the
caller's ROCm variables (check-compute reads the process environment; the export does not)."""
import os
import subprocess


def ctl(rocmtunectl, root, *args, ok=(0,)):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HSA_", "HIP_", "ROCR_", "GPU_", "AMD_"))}
    r = subprocess.run([rocmtunectl, "--root", root, *args], capture_output=True, text=True, env=env)
    if r.returncode not in ok:
        raise AssertionError(f"rocmtunectl {' '.join(args)}: exit {r.returncode}: {r.stderr}")
    return r.stdout
