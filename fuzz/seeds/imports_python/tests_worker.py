"""A minimal REAPI test worker for BuildGrid (Remote Workers API, v1test2 Bots).

Run it with BuildGrid's venv python (it uses the gRPC stubs shipped in the
`buildgrid` package):

    target/buildgrid/bin/python tests/worker.py --endpoint 127.0.0.1:PORT [--instance NAME]

It opens one bot session, long-polls for leases and runs them one at a time:
fetch the Action, its Command and input root from the CAS, materialise the input
root in a temp dir, run the arguments in the working directory with exactly the
Command's environment (plus PATH from this process if the Command has none,
every variable of this process whose name starts with WORKER_, and
MESH_TEST_WORKER=1), then upload outputs, stdout and stderr and complete the
lease with an ActionResult. It runs until killed (SIGTERM/SIGINT).
"""

import argparse
import hashlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import grpc

from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as reapi
from buildgrid._protos.build.bazel.remote.execution.v2.remote_execution_pb2_grpc import (
    ContentAddressableStorageStub,
)
from buildgrid._protos.google.bytestream import bytestream_pb2 as bs
from buildgrid._protos.google.bytestream.bytestream_pb2_grpc import ByteStreamStub
from buildgrid._protos.google.devtools.remoteworkers.v1test2 import bots_pb2
from buildgrid._protos.google.devtools.remoteworkers.v1test2.bots_pb2_grpc import BotsStub
from buildgrid._protos.google.rpc import code_pb2

BOT_OK = bots_pb2.BotStatus.Value("OK")
ACTIVE = bots_pb2.LeaseState.Value("ACTIVE")
COMPLETED = bots_pb2.LeaseState.Value("COMPLETED")
BATCH_LIMIT = 1 << 20  # blobs above this go through ByteStream
POLL_TIMEOUT = 30  # seconds per UpdateBotSession long poll (the server answers within 0.8 x min(this,
# its bot-session-keepalive-timeout)); CreateBotSession gets < 3.75 s so that it returns at once
# (BuildGrid does not long-poll when 0.8 x deadline < 3 s) and "bot session" below means registered.
CREATE_TIMEOUT = 3


class Cas:
    def __init__(self, channel, instance):
        self.instance = instance
        self.cas = ContentAddressableStorageStub(channel)
        self.bs = ByteStreamStub(channel)

    def _resource(self, digest):
        prefix = f"{self.instance}/" if self.instance else ""
        return f"{prefix}blobs/{digest.hash}/{digest.size_bytes}"

    def read(self, digest):
        if digest.size_bytes == 0:
            return b""
        req = bs.ReadRequest(resource_name=self._resource(digest))
        return b"".join(r.data for r in self.bs.Read(req))

    def read_msg(self, digest, cls):
        msg = cls()
        msg.ParseFromString(self.read(digest))
        return msg

    def put(self, data):
        digest = reapi.Digest(hash=hashlib.sha256(data).hexdigest(), size_bytes=len(data))
        if len(data) <= BATCH_LIMIT:
            req = reapi.BatchUpdateBlobsRequest(instance_name=self.instance)
            req.requests.add(digest=digest, data=data)
            for r in self.cas.BatchUpdateBlobs(req).responses:
                if r.status.code != code_pb2.OK:
                    raise RuntimeError(f"upload of {digest.hash} failed: {r.status.message}")
        else:
            name = f"{self.instance + '/' if self.instance else ''}uploads/{uuid.uuid4()}/blobs/{digest.hash}/{len(data)}"
            chunks = (
                bs.WriteRequest(resource_name=name, write_offset=off, data=data[off : off + BATCH_LIMIT],
                                finish_write=off + BATCH_LIMIT >= len(data))
                for off in range(0, len(data), BATCH_LIMIT)
            )
            self.bs.Write(chunks)
        return digest

    def put_msg(self, msg):
        return self.put(msg.SerializeToString(deterministic=True))

    def materialise(self, digest, path):
        """Writes the Directory `digest` (recursively) into the existing dir `path`."""
        directory = self.read_msg(digest, reapi.Directory)
        for f in directory.files:
            target = os.path.join(path, f.name)
            with open(target, "wb") as out:
                out.write(self.read(f.digest))
            os.chmod(target, 0o755 if f.is_executable else 0o644)
        for link in directory.symlinks:
            os.symlink(link.target, os.path.join(path, link.name))
        for d in directory.directories:
            os.mkdir(os.path.join(path, d.name))
            self.materialise(d.digest, os.path.join(path, d.name))

    def upload_dir(self, path, children):
        """Uploads the files under `path`; returns its Directory (sub-Directories go to `children`)."""
        directory = reapi.Directory()
        for name in sorted(os.listdir(path)):
            full = os.path.join(path, name)
            if os.path.islink(full):
                directory.symlinks.add(name=name, target=os.readlink(full))
            elif os.path.isdir(full):
                child = self.upload_dir(full, children)
                children.append(child)
                directory.directories.add(name=name, digest=self.put_msg(child))
            else:
                with open(full, "rb") as f:
                    digest = self.put(f.read())
                directory.files.add(name=name, digest=digest, is_executable=os.access(full, os.X_OK))
        return directory

    def upload_output(self, result, root, rel):
        """Adds the output at `rel` (relative to `root`), if it exists, to `result`."""
        full = os.path.join(root, rel)
        if os.path.islink(full):
            result.output_symlinks.add(path=rel, target=os.readlink(full))
        elif os.path.isdir(full):
            children = []
            tree = reapi.Tree(root=self.upload_dir(full, children))
            seen = set()
            for child in children:
                key = child.SerializeToString(deterministic=True)
                if key not in seen:
                    seen.add(key)
                    tree.children.append(child)
            result.output_directories.add(path=rel, tree_digest=self.put_msg(tree))
        elif os.path.isfile(full):
            with open(full, "rb") as f:
                digest = self.put(f.read())
            result.output_files.add(path=rel, digest=digest, is_executable=os.access(full, os.X_OK))


def command_env(command):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    env.update({k: v for k, v in os.environ.items() if k.startswith("WORKER_")})
    env["MESH_TEST_WORKER"] = "1"
    env.update({v.name: v.value for v in command.environment_variables})
    return env


def run_action(cas, action):
    """Executes `action`; returns (google.rpc status code, ActionResult)."""
    command = cas.read_msg(action.command_digest, reapi.Command)
    result = reapi.ActionResult()
    with tempfile.TemporaryDirectory(prefix="mesh-worker-") as root:
        cas.materialise(action.input_root_digest, root)
        workdir = os.path.join(root, command.working_directory)
        outputs = list(command.output_paths) or list(command.output_files) + list(command.output_directories)
        for out in outputs:
            os.makedirs(os.path.dirname(os.path.join(workdir, out)), exist_ok=True)
        timeout = action.timeout.seconds + action.timeout.nanos / 1e9 or None
        code = code_pb2.OK
        try:
            proc = subprocess.Popen(list(command.arguments), cwd=workdir, env=command_env(command),
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    start_new_session=True)
        except OSError as e:  # e.g. the program does not exist
            result.exit_code, stdout, stderr = 127, b"", f"{e}\n".encode()
        else:
            try:
                stdout, stderr = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:  # kill the whole process group, keep what it printed
                os.killpg(proc.pid, signal.SIGKILL)
                stdout, stderr = proc.communicate()
                code = code_pb2.DEADLINE_EXCEEDED
            except BaseException:  # the worker itself is being stopped: take the command down too
                os.killpg(proc.pid, signal.SIGKILL)
                raise
            result.exit_code = proc.returncode
        for out in outputs:
            cas.upload_output(result, workdir, out)
        result.stdout_digest.CopyFrom(cas.put(stdout))
        result.stderr_digest.CopyFrom(cas.put(stderr))
    return code, result


def serve_once(bots, cas, session):
    """Runs the session's new leases, then reports them and long-polls for more; returns the new session."""
    for lease in session.leases:
        if lease.state != ACTIVE:
            continue
        action = reapi.Action()
        lease.payload.Unpack(action)
        print(f"worker: lease {lease.id}", file=sys.stderr, flush=True)
        try:
            code, result = run_action(cas, action)
            lease.result.Pack(result)
            lease.status.code = code
        except Exception as e:  # report the failure (INTERNAL: the server retries the job) rather than dying
            lease.status.code, lease.status.message = code_pb2.INTERNAL, repr(e)
        lease.state = COMPLETED
    try:
        return bots.UpdateBotSession(
            bots_pb2.UpdateBotSessionRequest(name=session.name, bot_session=session), timeout=POLL_TIMEOUT)
    except grpc.RpcError as e:  # a long poll that timed out, or a server restarting: try again
        if e.code() not in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE):
            raise
        time.sleep(0.2)
        return session


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--endpoint", required=True, help="HOST:PORT of the BuildGrid server")
    parser.add_argument("--instance", default="", help="instance name (default: empty)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

    channel = grpc.insecure_channel(args.endpoint)
    bots, cas = BotsStub(channel), Cas(channel, args.instance)
    session = bots_pb2.BotSession(bot_id=f"mesh-test-{socket.gethostname()}-{os.getpid()}", status=BOT_OK)
    session = bots.CreateBotSession(bots_pb2.CreateBotSessionRequest(parent=args.instance, bot_session=session),
                                    timeout=CREATE_TIMEOUT)
    print(f"worker: bot session {session.name}", file=sys.stderr, flush=True)
    try:
        while True:
            session = serve_once(bots, cas, session)
    except (SystemExit, KeyboardInterrupt):
        # Tell the server this bot is going away, so that it assigns it no more work.
        session.status = bots_pb2.BotStatus.Value("BOT_TERMINATING")
        try:
            bots.UpdateBotSession(bots_pb2.UpdateBotSessionRequest(name=session.name, bot_session=session), timeout=2)
        except grpc.RpcError:
            pass


if __name__ == "__main__":
    main()
