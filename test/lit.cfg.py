# -*- Python -*-
# lit configuration for kiln's regression suites.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "kiln"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".hlo", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_obj_root, "test")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_system_environment("KILN_SEGMENT_OPS")

# The real framework dumps that kiln must read: a copy of the shared corpus
# kept in test/Inputs/corpus, so that the suite needs nothing beside it.
corpus = os.path.join(config.test_source_root, "Inputs", "corpus", "hlo")
config.substitutions.append(("%corpus", corpus))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%python", config.python_executable))
# The kiln Python module as built (build/python/kiln), and the build tree
# (for `cmake --install`).
config.substitutions.append(("%kiln_python_path", os.path.join(config.kiln_obj_root, "python")))
config.substitutions.append(("%kiln_obj_root", config.kiln_obj_root))

tools = [
    ToolSubst("kiln-opt", unresolved="fatal"),
    ToolSubst("kiln-translate", unresolved="ignore"),
    ToolSubst("kiln", unresolved="ignore"),
    ToolSubst("kiln-synth", unresolved="ignore"),
    ToolSubst("kiln-bench", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, [config.kiln_tools_dir, config.llvm_tools_dir])

# kiln's binaries carry MLIR and LLVM (the default) or load libMLIR.so.
if config.kiln_link_mlir_dylib.upper() not in ("ON", "TRUE", "YES", "1"):
    config.available_features.add("static-mlir")

# tmux runs kiln under a pseudo-terminal (precompile's live progress line).
if shutil.which("tmux"):
    config.available_features.add("tmux")

# A Python with NumPy, for the tests that read the arrays `kiln run -o`
# writes (tools/bootstrap.sh installs python3-numpy): lit's own Python, or
# the system's.
for candidate in [config.python_executable, "/usr/bin/python3"]:
    try:
        subprocess.run([candidate, "-c", "import numpy"], check=True,
                       capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        continue
    config.available_features.add("numpy")
    config.substitutions.append(("%numpy_python", candidate))
    break

# Servers that the remote-tier tests start on loopback themselves
# (tools/bootstrap.sh installs them); without one, its tests are UNSUPPORTED.
if shutil.which("redis-server") and shutil.which("redis-cli"):
    config.available_features.add("redis")
# (Servers live in /usr/sbin, which a user's PATH may lack.)
config.environment["PATH"] = config.environment.get("PATH", "") + ":/usr/sbin"
if shutil.which("nginx") or os.path.exists("/usr/sbin/nginx"):
    config.available_features.add("nginx")


# Mounting a small tmpfs (as root) lets a test fill a file tier's disk.
def can_mount_tmpfs():
    import tempfile
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("mount"):
        return False
    with tempfile.TemporaryDirectory() as where:
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", where],
                                 capture_output=True).returncode == 0
        if mounted:
            subprocess.run(["umount", where], capture_output=True)
        return mounted


if can_mount_tmpfs():
    config.available_features.add("tmpfs-mount")

# Settings come from the environment and the user's kiln.conf: tests see
# neither the user's file nor their KILN_* settings.
config.environment["XDG_CONFIG_HOME"] = os.path.join(config.test_exec_root, "no-user-config")
for name in ["KILN_REMOTE_STORAGE", "KILN_COMPILER_CMD", "KILN_COMPILER_VERSION_CMD",
             "KILN_COMPILER_OPTIONS", "KILN_OPTIONS", "KILN_TARGET", "KILN_TARGET_CPU"]:
    config.environment.pop(name, None)

# A real Slurm (slurm-wlm and munge, which tools/bootstrap.sh installs),
# started by the test itself on this machine: needs root (slurmd, munged
# as user munge).
if all(shutil.which(tool) or os.path.exists("/usr/sbin/" + tool)
       for tool in ["slurmctld", "slurmd", "srun", "sinfo", "munged", "runuser"]) \
        and os.path.exists("/etc/munge/munge.key") and os.geteuid() == 0:
    config.available_features.add("slurm")
