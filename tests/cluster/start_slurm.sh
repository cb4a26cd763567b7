#!/usr/bin/env bash
# Start a real one-node SLURM (munged, slurmctld, slurmd) with its files under one scratch
# directory, for the cluster test (tests/test_slurm.py). Usage: start_slurm.sh DIR
#
# Installs Debian's slurmctld/slurmd/slurm-client/munge with apt-get when they are missing (needs
# root). The munge key, socket, slurm.conf, state, spool, pid and log files are all under DIR and
# the ports are free ones picked now, so a munged already running is neither used nor disturbed.
# One file lives outside DIR: /etc/slurm/slurm.conf, a symlink to DIR/slurm.conf, because the
# executor plugin's job step strips SLURM_CONF (every SLURM_* variable) before its nested srun,
# which then reads the default path. So one such test cluster runs at a time; an existing
# /etc/slurm/slurm.conf that is not a stale link of ours is an error, never overwritten.
# Stop it with stop_slurm.sh DIR (by PID; it removes the link).
#
# Exit status 3 means "this machine cannot install the packages" (not root, or apt-get failed);
# the test turns exactly that into a loud skip. Any other failure is an error.
set -euo pipefail

DIR=$(realpath -m "${1:?usage: start_slurm.sh DIR}")
PACKAGES=(slurmctld slurmd slurm-client munge)

missing=()
for cmd in slurmctld slurmd sbatch squeue munged; do
    command -v "$cmd" >/dev/null || missing+=("$cmd")
done
if ((${#missing[@]})); then
    if [[ $(id -u) -ne 0 ]]; then
        echo "start_slurm.sh: ${missing[*]} missing and not root: cannot install ${PACKAGES[*]}" >&2
        exit 3
    fi
    echo "start_slurm.sh: installing ${PACKAGES[*]} (missing: ${missing[*]})" >&2
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends "${PACKAGES[@]}"; } >"${TMPDIR:-/tmp}/start_slurm.apt.log" 2>&1; then
        tail -20 "${TMPDIR:-/tmp}/start_slurm.apt.log" >&2
        echo "start_slurm.sh: apt-get could not install ${PACKAGES[*]}" >&2
        exit 3
    fi
fi

# slurmd runs jobs as the submitting user and must be root to do so (SlurmUser=root below).
if [[ $(id -u) -ne 0 ]]; then
    echo "start_slurm.sh: slurmd must run as root to launch jobs" >&2
    exit 3
fi

mkdir -p "$DIR"/{munge,state,spool}
chmod 755 "$DIR"

# munge: its own key, socket and pid file under DIR; munged runs as user munge and checks that
# its directories are not writable by others.
MUNGE="$DIR/munge"
dd if=/dev/urandom of="$MUNGE/munge.key" bs=1024 count=1 status=none
chown -R munge:munge "$MUNGE"
# Traversable by all (root's daemons and the submitting user reach the socket), listable by none.
chmod 711 "$MUNGE"
chmod 400 "$MUNGE/munge.key"
runuser -u munge -- munged --socket="$MUNGE/munge.socket" --key-file="$MUNGE/munge.key" \
    --pid-file="$MUNGE/munged.pid" --log-file="$MUNGE/munged.log" --seed-file="$MUNGE/munged.seed"
munge --socket="$MUNGE/munge.socket" -n | unmunge --socket="$MUNGE/munge.socket" >/dev/null

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])'; }
CTLD_PORT=$(free_port)
SLURMD_PORT=$(free_port)
while [[ $SLURMD_PORT == "$CTLD_PORT" ]]; do SLURMD_PORT=$(free_port); done

HOST=$(hostname -s)
getent hosts "$HOST" >/dev/null || { echo "start_slurm.sh: host name $HOST does not resolve" >&2; exit 1; }
# Not plain nproc: it obeys OMP_NUM_THREADS, which tests set to 1.
CPUS=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
# 80% of the memory available now, so jobs never push the machine into swap or the OOM killer.
MEM_MB=$(awk '/MemAvailable/ {printf "%d", $2 / 1024 * 0.8}' /proc/meminfo)

# Memory enforcement, what the retry-with-more-memory test exercises. With a writable cgroup v1
# memory controller: task/cgroup puts each job in a memory cgroup of its request, the kernel's OOM
# killer stops it there, and SLURM records the job as OUT_OF_MEMORY (Slurm 22.05 sets that state
# only from task/cgroup's OOM events). Without one: jobacct_gather samples each step's RSS every
# second and kills a step above its request (OverMemoryKill), which SLURM records as FAILED.
# DIR/memory_enforcement says which, for the test.
CGROUP_MEMORY=/sys/fs/cgroup/memory
if [[ -f $CGROUP_MEMORY/memory.limit_in_bytes ]] && mkdir "$CGROUP_MEMORY/kreinbench-probe.$$" 2>/dev/null; then
    rmdir "$CGROUP_MEMORY/kreinbench-probe.$$"
    MEMORY_ENFORCEMENT=cgroup TASK_PLUGINS=task/cgroup,task/affinity OVER_MEMORY_KILL=
    cat >"$DIR/cgroup.conf" <<EOF
CgroupPlugin=cgroup/v1
CgroupMountpoint=/sys/fs/cgroup
CgroupAutomount=no
ConstrainRAMSpace=yes
EOF
else
    MEMORY_ENFORCEMENT=jobacct TASK_PLUGINS=task/affinity OVER_MEMORY_KILL=JobAcctGatherParams=OverMemoryKill
fi
echo "$MEMORY_ENFORCEMENT" >"$DIR/memory_enforcement"

cat >"$DIR/slurm.conf" <<EOF
# One-node SLURM for kreinbench's cluster test, written by tests/cluster/start_slurm.sh.
ClusterName=kreinbench-ci
SlurmctldHost=$HOST
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE/munge.socket
# Track processes by parent PID (no proctrack cgroup needed); task/none logs a cpu-binding
# warning for every job.
ProctrackType=proctrack/linuxproc
TaskPlugin=$TASK_PLUGINS
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=1
$OVER_MEMORY_KILL
# No slurmdbd: sacct cannot work, so the profile polls with squeue; finished jobs stay visible
# to squeue for MinJobAge seconds, and every finished job is appended to the jobcomp file.
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$DIR/jobcomp.log
MinJobAge=600
ReturnToService=2
MpiDefault=none
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/slurmctld.log
SlurmdLogFile=$DIR/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
NodeName=$HOST CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=ci Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$DIR/slurm.conf"
SYSTEM_CONF=/etc/slurm/slurm.conf
if [[ -L $SYSTEM_CONF && ! -e $SYSTEM_CONF ]]; then
    rm "$SYSTEM_CONF"  # left by a test cluster whose directory is gone
fi
if [[ -e $SYSTEM_CONF ]]; then
    echo "start_slurm.sh: $SYSTEM_CONF exists ($(readlink -f "$SYSTEM_CONF")): another SLURM is configured here" >&2
    exit 1
fi
mkdir -p "$(dirname "$SYSTEM_CONF")"
ln -s "$SLURM_CONF" "$SYSTEM_CONF"

# -i: ignore state from a previous run of this directory; both daemons fork and write pid files.
slurmctld -i -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"

for _ in $(seq 60); do
    state=$(sinfo -h -o %T 2>/dev/null || true)
    [[ $state == idle ]] && { echo "start_slurm.sh: SLURM up (node $HOST, $CPUS CPUs, ${MEM_MB} MB) in $DIR" >&2; exit 0; }
    sleep 0.5
done
echo "start_slurm.sh: node did not become idle (sinfo: ${state:-nothing}); see $DIR/slurmctld.log and $DIR/slurmd.log" >&2
tail -5 "$DIR/slurmctld.log" "$DIR/slurmd.log" >&2 || true
exit 1
