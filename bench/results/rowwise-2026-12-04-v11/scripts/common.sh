# common.sh: what the runs of rowwise v11 share (sourced by run-*.sh): the repository root, the carried binaries
# (build-carry-lead/{bin,lib}), the kernels of this tree, and the GPU's state at the start.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
B=build-carry-lead/bin
export LD_LIBRARY_PATH=$PWD/build-carry-lead/lib:${LD_LIBRARY_PATH:-}
export KTUNE_KERNEL_DIR=$PWD/kernels_templated KTUNE_SOURCE_DIR=$PWD KTUNE_BIN=$PWD/$B/ktune
gpu_state() { nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv; }
gpu_state
