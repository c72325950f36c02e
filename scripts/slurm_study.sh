#!/bin/bash
# Run a probekit study as a SLURM job array: every array task runs one deterministic share of the
# units (--shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT) and writes into one study directory
# on a file system that every node sees. Shares are contiguous blocks of the grid, so a task mostly
# needs one debiased encoder; the first task to need one builds it under OUT/shared/ and the others
# wait for it (a file lock) and load it. A resubmitted array skips finished units and redoes the
# ones a killed or timed-out task left unfinished.
#
#   sbatch scripts/slurm_study.sh                                  # the paper's study, 48 tasks
#   CONFIG=my.toml OUT=/scratch/me/study sbatch --array=0-9 scripts/slurm_study.sh
#
# Optional first step, so that no GPU waits while a debiased encoder is trained: build the shared
# work alone (a few tasks are enough), then start the array when it is done:
#   jid=$(sbatch --parsable --array=0-7 --export=ALL,PREPARE=1 scripts/slurm_study.sh)
#   sbatch --dependency=afterok:$jid scripts/slurm_study.sh
# And the report once every unit is done:
#   sbatch --dependency=afterok:<array job id> --wrap "probekit report $OUT"
#
#SBATCH --job-name=probekit-study
#SBATCH --array=0-47
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=8
#SBATCH --mem=64G
#SBATCH --time=12:00:00
#SBATCH --output=probekit-study-%A_%a.log

set -euo pipefail

CONFIG=${CONFIG:-scripts/paper_study.toml}
OUT=${OUT:?set OUT to the study directory on a shared file system, e.g. OUT=/scratch/$USER/paper-study}
BIOS=${BIOS:-/data/bias_in_bios}                   # Bias-in-Bios (LabHC/bias_in_bios layout)
JIGSAW=${JIGSAW:-/data/jigsaw/all_data.csv}        # Jigsaw Unintended Bias (competition CSV)

# Compute nodes are often offline: models pre-downloaded into the Hugging Face cache.
export HF_HUB_OFFLINE=${HF_HUB_OFFLINE:-1}
export TOKENIZERS_PARALLELISM=false
export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-8}

# source /path/to/venv/bin/activate               # an environment with probekit installed

extra=()
if [[ -n "${PREPARE:-}" ]]; then
  extra+=(--prepare)
fi

probekit study "$CONFIG" --out "$OUT" \
  --shard "${SLURM_ARRAY_TASK_ID}/${SLURM_ARRAY_TASK_COUNT}" \
  --data-path "bios=$BIOS" --data-path "jigsaw=$JIGSAW" \
  --keep-going ${extra[@]+"${extra[@]}"}

# One GPU per task. To fine-tune each unit on several GPUs instead, give the task more GPUs and
# start probekit through Accelerate (the training loop is Accelerate's; only the main process
# writes files):
#   accelerate launch --num_processes 4 -m probekit study "$CONFIG" --out "$OUT" --shard ...
