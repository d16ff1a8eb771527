# Starts the servers that remote-tier tests talk to, on free loopback ports
# in a directory of the test's own, and stops them when the test's shell
# exits. Source it:  . remote-servers.sh DIR
#
#   start_redis            sets REDIS_PORT, REDIS_PID (redis-server)
#   start_nginx [TOKEN]    sets HTTP_PORT, NGINX_PID (nginx with WebDAV
#                          PUT/DELETE under DIR/www; with TOKEN, requests
#                          without "Authorization: Bearer TOKEN" get 401)
#   start_silent           sets SILENT_PORT: a listener that accepts
#                          connections and never answers
#   free_port              prints a port nothing listens on
set -u
SERVERS_DIR="$1"
mkdir -p "$SERVERS_DIR"
SERVER_PIDS=()
stop_servers() {
  for pid in "${SERVER_PIDS[@]}"; do
    kill "$pid" 2>/dev/null
  done
  for pid in "${SERVER_PIDS[@]}"; do
    wait "$pid" 2>/dev/null
  done
  SERVER_PIDS=()
}
trap stop_servers EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until something accepts connections on port $1.
wait_for_port() {
  for _ in $(seq 1 200); do
    if (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; then
      return 0
    fi
    sleep 0.05
  done
  echo "nothing listens on port $1" >&2
  return 1
}

start_redis() {
  REDIS_PORT=$(free_port)
  mkdir -p "$SERVERS_DIR/redis"
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' \
    --appendonly no --dir "$SERVERS_DIR/redis" --logfile "$SERVERS_DIR/redis/log" \
    --daemonize no &
  REDIS_PID=$!
  SERVER_PIDS+=("$REDIS_PID")
  wait_for_port "$REDIS_PORT"
}

start_nginx() {
  local token="${1:-}"
  HTTP_PORT=$(free_port)
  local dir="$SERVERS_DIR/nginx"
  mkdir -p "$dir/www" "$dir/body"
  local auth=""
  if [ -n "$token" ]; then
    auth="if (\$http_authorization != \"Bearer $token\") { return 401; }"
  fi
  cat > "$dir/nginx.conf" <<CONF
user root;
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $dir/body;
  client_max_body_size 0;
  server {
    listen 127.0.0.1:$HTTP_PORT;
    root $dir/www;
    location / {
      $auth
      dav_methods PUT DELETE;
      create_full_put_path on;
      dav_access user:rw group:r all:r;
    }
  }
}
CONF
  nginx -c "$dir/nginx.conf" -p "$dir" 2>"$dir/stderr" &
  NGINX_PID=$!
  SERVER_PIDS+=("$NGINX_PID")
  wait_for_port "$HTTP_PORT"
}

start_silent() {
  SILENT_PORT=$(free_port)
  python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(64)
held = []
while True:
    connection, _ = s.accept()
    held.append(connection)
' "$SILENT_PORT" &
  SERVER_PIDS+=("$!")
  wait_for_port "$SILENT_PORT"
}
