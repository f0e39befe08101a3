#!/usr/bin/env bash
# slurm-one-node.sh: a one-node Slurm cluster on this Debian machine, for
# trying `lessons grade --slurm` and for CI. Run as root:
#
#   sudo scripts/slurm-one-node.sh          install (apt), configure, start
#   sudo scripts/slurm-one-node.sh stop     stop the daemons it started
#
# It installs munge, slurmctld, slurmd and slurm-client from Debian, writes
# /etc/slurm/slurm.conf (two partitions on this node: "cpu" for builds and
# "gpu" for runs) and starts munged, slurmctld and slurmd without systemd,
# so it works in containers. With no GPU here (CI) the node still offers
# gres gpu: four stand-in device files (/dev/lessons-gpuN, copies of
# /dev/null), so jobs asking --gres=gpu:1 are scheduled and Slurm sets
# CUDA_VISIBLE_DEVICES; with NVIDIA GPUs it offers the real /dev/nvidiaN.
# CPUS (default 8) is how many tasks may run at once: more than the cores,
# since a stand-in toolchain's tasks mostly wait.
#
# On a machine without network or apt, SLURM_DEBS=DIR names a folder of
# the .deb files (apt-get download slurmctld slurmd slurm-client
# slurm-wlm-basic-plugins munge libmunge2 liblua5.1-0 libhwloc15 libdbus-1-3
# libjson-c5 liblz4-1 libnuma1 libyaml-0-2 on Debian 12): they are
# unpacked into /opt/lessons-slurm and run from there. Then source the
# file /opt/lessons-slurm/env for PATH and LD_LIBRARY_PATH.
set -euo pipefail

if [ "$(id -u)" != 0 ]; then
  echo "slurm-one-node: run as root (it installs packages and starts daemons)" >&2
  exit 1
fi
run=/run/lessons-slurm
if [ "${1:-}" = stop ]; then
  for d in slurmd slurmctld munged; do
    [ -f "$run/$d.pid" ] && kill "$(cat "$run/$d.pid")" 2>/dev/null || true
  done
  echo "slurm-one-node: stopped"
  exit 0
fi

plugins=""
if [ -n "${SLURM_DEBS:-}" ]; then
  prefix=/opt/lessons-slurm
  mkdir -p "$prefix"
  for f in "$SLURM_DEBS"/*.deb; do dpkg -x "$f" "$prefix"; done
  # The names Debian's alternatives give; slurmd starts slurmstepd from
  # /usr/sbin, where its build put it.
  for b in slurmctld slurmd slurmstepd; do
    ln -sf "$b-wlm" "$prefix/usr/sbin/$b"
    [ -e "/usr/sbin/$b" ] || ln -s "$prefix/usr/sbin/$b-wlm" "/usr/sbin/$b"
  done
  {
    echo "export PATH=$prefix/usr/sbin:$prefix/usr/bin:\$PATH"
    echo "export LD_LIBRARY_PATH=$prefix/usr/lib/x86_64-linux-gnu:$prefix/usr/lib/x86_64-linux-gnu/slurm-wlm:$prefix/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
  } >"$prefix/env"
  # shellcheck disable=SC1091
  . "$prefix/env"
  plugins="PluginDir=$prefix/usr/lib/x86_64-linux-gnu/slurm-wlm"
elif ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends munge slurmctld slurmd slurm-client >/dev/null
fi

host=$(hostname -s)
# slurmctld must find its own host by name.
getent hosts "$host" >/dev/null || echo "127.0.0.1 $host" >>/etc/hosts
cpus=${CPUS:-8}
mem=$(awk '/MemTotal/ {print int($2/1024/2)}' /proc/meminfo)
mkdir -p "$run" /etc/slurm /etc/munge /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge /var/lib/munge /var/log/munge
chown munge:munge /run/munge /var/lib/munge /var/log/munge 2>/dev/null || true

# munge: a key, then the daemon (the one key of a one-node cluster).
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
fi
chown munge:munge /etc/munge/munge.key 2>/dev/null || true
chmod 400 /etc/munge/munge.key
if ! munge -n </dev/null >/dev/null 2>&1; then
  if id munge >/dev/null 2>&1; then
    runuser -u munge -- "$(command -v munged)" --force
  else
    munged --force # no munge user (unpacked .debs): as root
  fi
  cat /run/munge/munged.pid >"$run/munged.pid" 2>/dev/null || true
fi

# GPUs: the real ones, else four stand-ins.
gpus=()
for f in /dev/nvidia[0-9]*; do [ -e "$f" ] && gpus+=("$f"); done
if [ ${#gpus[@]} = 0 ]; then
  for i in 0 1 2 3; do
    # Where device files cannot be made (a container without CAP_MKNOD)
    # the gres has no files: Slurm still counts it, without setting
    # CUDA_VISIBLE_DEVICES.
    if [ -e /dev/lessons-gpu$i ] || mknod /dev/lessons-gpu$i c 1 3 2>/dev/null; then
      chmod 666 /dev/lessons-gpu$i
      gpus+=(/dev/lessons-gpu$i)
    fi
  done
fi
ngpus=${#gpus[@]}
[ "$ngpus" != 0 ] || ngpus=4

cat >/etc/slurm/slurm.conf <<EOF
# Written by scripts/slurm-one-node.sh: one node, builds on "cpu", runs on "gpu".
ClusterName=lessons
SlurmctldHost=$host
$plugins
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=$run/slurmctld.pid
SlurmdPidFile=$run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
# No cgroups in a container: plain process tracking, no task binding.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SlurmdParameters=config_overrides
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
# No slurmdbd: finished jobs stay visible to scontrol for MinJobAge seconds.
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=/var/log/slurm/jobcomp.log
MinJobAge=3600
MpiDefault=none
ReturnToService=2
SchedulerParameters=defer_batch=0
SchedulerType=sched/backfill
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=2
NodeName=$host CPUs=$cpus RealMemory=$mem Gres=gpu:$ngpus State=UNKNOWN
PartitionName=cpu Nodes=$host Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=$host MaxTime=INFINITE State=UP
EOF
{
  echo "# Written by scripts/slurm-one-node.sh"
  for g in "${gpus[@]}"; do echo "NodeName=$host Name=gpu File=$g"; done
  [ ${#gpus[@]} != 0 ] || echo "NodeName=$host Name=gpu Count=$ngpus"
} >/etc/slurm/gres.conf
# Where cgroup v2 is mounted slurmd sets up its cgroups even with task/none;
# without systemd (a container) it must do so itself, not through dbus.
if [ -f /sys/fs/cgroup/cgroup.controllers ] && [ ! -d /run/systemd/system ]; then
  mkdir -p /sys/fs/cgroup/system.slice 2>/dev/null || true
fi
cat >/etc/slurm/cgroup.conf <<EOF
# Written by scripts/slurm-one-node.sh
IgnoreSystemd=yes
IgnoreSystemdOnFailure=yes
EOF
# Debian's client looks in /etc/slurm; some builds look in /etc/slurm-llnl.
[ -e /etc/slurm-llnl ] || ln -s /etc/slurm /etc/slurm-llnl

stop_pidfile() { [ -f "$1" ] && kill "$(cat "$1")" 2>/dev/null; rm -f "$1"; sleep 0.5; }
stop_pidfile "$run/slurmd.pid" || true
stop_pidfile "$run/slurmctld.pid" || true
slurmctld -i
slurmd
for i in $(seq 1 60); do
  if sinfo -h -o '%T' 2>/dev/null | grep -q -E '^(idle|mixed|allocated)'; then
    sinfo
    echo "slurm-one-node: up (partitions cpu and gpu on $host, $ngpus gpu(s), $cpus cpus)"
    exit 0
  fi
  # A node that was down comes back once slurmd has registered.
  scontrol update nodename="$host" state=resume >/dev/null 2>&1 || true
  sleep 1
done
echo "slurm-one-node: the node did not come up; the logs:" >&2
tail -20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2
exit 1
