"""chserver.py: a throw-away clickhouse-server (18.16) for the fleet tests.

Starts `clickhouse-server --config-file=DIR/config.xml` with everything
(data, logs, users) in DIR, on free loopback ports, and stops it.  Used by
fleet_test.py, Tests/Bench/bench_push.sh and the README's fleet recipe
(`python3 chserver.py start DIR`, `fleet DIR` for two shards, `stop DIR`);
no systemd, no root.

Also a small HTTP client for queries (urllib), so the tests read results
through the same interface `tracestore push` writes through.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

USERS = """<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>4000000000</max_memory_usage></default></profiles>
  <users><default><password></password>
    <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries>
    <errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows>
    <execution_time>0</execution_time></interval></default></quotas>
</yandex>
"""

CONFIG = """<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>{d}/server.log</log>
    <errorlog>{d}/server.err.log</errorlog><size>10M</size><count>1</count></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>{http}</http_port>
  <tcp_port>{tcp}</tcp_port>
  <interserver_http_port>{inter}</interserver_http_port>
  <interserver_http_host>127.0.0.1</interserver_http_host>
  <path>{d}/data/</path>
  <tmp_path>{d}/tmp/</tmp_path>
  <user_files_path>{d}/user_files/</user_files_path>
  <format_schema_path>{d}/format_schemas/</format_schema_path>
  <users_config>{d}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>536870912</mark_cache_size>
  <max_concurrent_queries>50</max_concurrent_queries>
  <mlock_executable>false</mlock_executable>
  <remote_servers>{remote}</remote_servers>
</yandex>
"""


def die_with_me():
    """In the child: SIGTERM when the process that started it dies (a test
    that crashes does not leave its servers behind)."""
    import ctypes
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)


def have_server():
    return shutil.which("clickhouse-server") is not None


def free_ports(n):
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


class Server:
    def __init__(self, d, remote=""):
        self.dir = os.path.abspath(d)
        self.remote = remote
        self.proc = None
        self.http = self.tcp = None

    def start(self, ports=None, die_with_parent=False):
        os.makedirs(self.dir, exist_ok=True)
        for sub in ("data", "tmp", "user_files", "format_schemas"):
            os.makedirs(os.path.join(self.dir, sub), exist_ok=True)
        self.http, self.tcp, inter = ports or free_ports(3)
        with open(os.path.join(self.dir, "users.xml"), "w") as f:
            f.write(USERS)
        with open(os.path.join(self.dir, "config.xml"), "w") as f:
            f.write(CONFIG.format(d=self.dir, http=self.http, tcp=self.tcp,
                                  inter=inter, remote=self.remote))
        env = {k: v for k, v in os.environ.items()
               if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}
        self.proc = subprocess.Popen(
            ["clickhouse-server", "--config-file=" + self.dir + "/config.xml"],
            cwd=self.dir, env=env, stdout=subprocess.DEVNULL,
            preexec_fn=die_with_me if die_with_parent else None,
            stderr=open(os.path.join(self.dir, "stderr.log"), "w"))
        deadline = time.time() + 150
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("clickhouse-server exited: see %s" % self.dir)
            try:
                if self.query("SELECT 1").strip() == "1":
                    return self
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.1)
        raise RuntimeError("clickhouse-server did not answer in 150 s")

    @property
    def url(self):
        return "http://127.0.0.1:%d/" % self.http

    def query(self, sql, database=None):
        q = self.url
        if database:
            q += "?database=" + urllib.parse.quote(database)
        req = urllib.request.Request(q, data=sql.encode(), method="POST")
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.read().decode()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


if __name__ == "__main__":
    # chserver.py start DIR: starts, prints the HTTP port, leaves it running
    # (its pid in DIR/pid); chserver.py stop DIR.
    # chserver.py fleet DIR: two servers (DIR/0, DIR/1) that both know the
    # cluster `fleet` of two shards, one on each; prints their HTTP ports.
    # Without clickhouse-server both succeed doing nothing (the cases that
    # need a server exit 77 themselves).
    cmd, d = sys.argv[1], sys.argv[2]
    if cmd == "fleet":
        if not have_server():
            sys.exit(77)
        ports = [free_ports(3) for _ in range(2)]
        remote = ("<fleet>" + "".join(
            "<shard><replica><host>127.0.0.1</host><port>%d</port>"
            "</replica></shard>" % p[1] for p in ports) + "</fleet>")
        out = []
        for i, p in enumerate(ports):
            sub = os.path.join(d, str(i))
            shutil.rmtree(sub, ignore_errors=True)
            s = Server(sub, remote).start(p)
            with open(os.path.join(sub, "pid"), "w") as f:
                f.write(str(s.proc.pid))
            out.append(str(s.http))
        print(" ".join(out))
        os._exit(0)
    if cmd == "stop" and os.path.isdir(os.path.join(d, "0")):
        for sub in ("0", "1"):
            subprocess.call([sys.executable, __file__, "stop",
                             os.path.join(d, sub)])
        sys.exit(0)
    if cmd == "start":
        if not have_server():
            print("clickhouse-server is not installed")
            sys.exit(0)
        if os.path.exists(os.path.join(d, "pid")):
            try:
                with open(os.path.join(d, "pid")) as f:
                    os.kill(int(f.read()), signal.SIGTERM)
                time.sleep(1)
            except (OSError, ValueError):
                pass
        shutil.rmtree(d, ignore_errors=True)
        s = Server(d).start()
        with open(os.path.join(d, "pid"), "w") as f:
            f.write(str(s.proc.pid))
        with open(os.path.join(d, "port"), "w") as f:
            f.write(str(s.http))
        print(s.http)
        os._exit(0)
    try:
        with open(os.path.join(d, "pid")) as f:
            pid = int(f.read())
        os.unlink(os.path.join(d, "pid"))
        if os.path.exists(os.path.join(d, "port")):
            os.unlink(os.path.join(d, "port"))
    except OSError:
        sys.exit(0)
    os.kill(pid, signal.SIGTERM)
    for _ in range(300):
        try:
            os.kill(pid, 0)
        except OSError:
            break
        time.sleep(0.1)
