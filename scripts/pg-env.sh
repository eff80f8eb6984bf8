#!/usr/bin/env bash
# Starts a throwaway PostgreSQL for Quire's tests and prints the line that points them at it:
#
#   eval "$(scripts/pg-env.sh)"      # sets QUIRE_TEST_PG (and QUIRE_PG_DATA, to stop it)
#   cargo test -p quire-store-postgres
#   scripts/pg-env.sh stop "$QUIRE_PG_DATA"
#
# initdb into a fresh directory in /tmp, a free port on 127.0.0.1, pg_ctl start -w (waits until
# the server accepts connections), a database `quire`. Runs the server as the `postgres` user
# when called as root (PostgreSQL refuses root). The same steps as the Rust test harness
# (crates/quire-testkit/src/pg.rs), which starts its own server when QUIRE_TEST_PG
# is unset. Set PG_ENV_DURABLE=1 to keep PostgreSQL's durable defaults (fsync on); otherwise
# fsync is off, as befits data that dies with the tests.
set -euo pipefail

bindir=${QUIRE_PG_BINDIR:-}
if [[ -z $bindir ]]; then
    bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
fi
if [[ -z $bindir || ! -x $bindir/initdb ]]; then
    if command -v initdb >/dev/null; then
        bindir=$(dirname "$(command -v initdb)")
    else
        echo "pg-env.sh: PostgreSQL server binaries (initdb, pg_ctl) not found:" \
            "install Debian's postgresql package (apt-get install -y postgresql)" >&2
        exit 1
    fi
fi

as_pg() {
    if [[ $(id -u) == 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

if [[ ${1:-} == stop ]]; then
    data=${2:?usage: pg-env.sh stop DATA_DIR}
    as_pg "$bindir/pg_ctl" stop -D "$data" -m fast >&2
    rm -rf "$data"
    exit 0
fi

data=/tmp/quire-pg-env-$$-$RANDOM
as_pg "$bindir/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --locale=C \
    --no-sync --no-instructions >/dev/null

options="-c listen_addresses=127.0.0.1 -c unix_socket_directories=$data -c max_connections=300"
if [[ ${PG_ENV_DURABLE:-0} != 1 ]]; then
    options+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
fi

# A free port can be taken between finding it and the server binding it: try a few.
for _ in 1 2 3; do
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    if as_pg "$bindir/pg_ctl" start -w -t 120 -D "$data" -l "$data/server.log" \
        -o "-p $port $options" >/dev/null; then
        as_pg "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres quire
        echo "export QUIRE_TEST_PG=postgres://postgres@127.0.0.1:$port/quire"
        echo "export QUIRE_PG_DATA=$data"
        echo "pg-env.sh: PostgreSQL on port $port, data in $data;" \
            "stop it with: $0 stop $data" >&2
        exit 0
    fi
done
cat "$data/server.log" >&2
echo "pg-env.sh: PostgreSQL did not start" >&2
exit 1
