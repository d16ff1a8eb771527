# A real Slurm cluster of 4 nodes on this machine, for the tests: munged
# (as user munge, its own socket), slurmctld and one slurmd per node
# (n1..n4 on 127.0.0.1, each its own port), state and spool under DIR,
# all stopped when the test's shell exits. Source it:
#   . slurm.sh DIR      then SLURM_CONF is set, and srun works.
set -u
SLURM_DIR="$1"
rm -rf "$SLURM_DIR" && mkdir -p "$SLURM_DIR"/{munge,state,spool,log}
SLURM_PIDS=()
stop_slurm() {
  for file in "$SLURM_DIR"/slurmd-n*.pid "$SLURM_DIR"/slurmctld.pid \
              "$SLURM_DIR"/munge/munged.pid; do
    [ -s "$file" ] && kill "$(cat "$file")" 2>/dev/null
  done
  sleep 0.5
}
trap 'stop_slurm; type stop_servers >/dev/null 2>&1 && stop_servers' EXIT

chown munge:munge "$SLURM_DIR/munge" && chmod 755 "$SLURM_DIR/munge"
chmod 755 "$SLURM_DIR"
runuser -u munge -- munged --socket="$SLURM_DIR/munge/munge.sock" \
  --pid-file="$SLURM_DIR/munge/munged.pid" --log-file="$SLURM_DIR/munge/munged.log" \
  --seed-file="$SLURM_DIR/munge/munged.seed" --key-file=/etc/munge/munge.key ||
  { echo "munged did not start" >&2; exit 1; }

# Five consecutive free ports: the controller's, then one per node.
base=$(python3 - <<'PY'
import random, socket
while True:
    base = random.randint(20000, 60000)
    free = True
    for port in range(base, base + 5):
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            free = False
        s.close()
    if free:
        print(base)
        break
PY
)
host=$(hostname)
cat > "$SLURM_DIR/slurm.conf" <<CONF
ClusterName=kilntest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
AuthType=auth/munge
AuthInfo=socket=$SLURM_DIR/munge/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool/%n
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd-%n.pid
SlurmctldLogFile=$SLURM_DIR/log/slurmctld.log
SlurmdLogFile=$SLURM_DIR/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=n[1-4] NodeHostname=$host NodeAddr=127.0.0.1 Port=[$((base + 1))-$((base + 4))] CPUs=2 State=UNKNOWN
PartitionName=test Nodes=n[1-4] Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$SLURM_DIR/slurm.conf"
slurmctld -f "$SLURM_CONF" || { echo "slurmctld did not start" >&2; exit 1; }
for n in 1 2 3 4; do
  mkdir -p "$SLURM_DIR/spool/n$n"
  slurmd -f "$SLURM_CONF" -N "n$n" || { echo "slurmd n$n did not start" >&2; exit 1; }
done
for _ in $(seq 100); do
  [ "$(sinfo -h -o '%T' -t idle 2>/dev/null | head -1)" = idle ] &&
    [ "$(sinfo -h -N -t idle -o '%N' 2>/dev/null | wc -l)" -eq 4 ] && break
  sleep 0.2
done
