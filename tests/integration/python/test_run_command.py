"""The README's first command, scripts/run.sh: it serves, and an item written survives the
server being killed with SIGKILL and started again with the same command."""
import os
import re
import signal
import subprocess
import tempfile
import time

import boto3

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def start_run_sh(data_dir):
    # Later options win, so a test can move the port and data directory off the defaults.
    proc = subprocess.Popen([os.path.join(ROOT, "scripts", "run.sh"), "--address", "127.0.0.1",
                             "--port", "0", "--db-path", data_dir],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    log = []
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        log.append(line)
        match = re.search(r"listening on [0-9.]+:(\d+)", line)
        if match:
            return proc, int(match.group(1))
    proc.kill()
    raise RuntimeError("run.sh did not start ddbd: " + "".join(log[-20:]))


def client(port):
    return boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                        aws_access_key_id="k", aws_secret_access_key="s")


def test_run_command_serves_and_keeps_data_across_sigkill():
    with tempfile.TemporaryDirectory(prefix="ddbd-run-") as data_dir:
        proc, port = start_run_sh(data_dir)
        try:
            ddb = client(port)
            ddb.create_table(TableName="Users", BillingMode="PAY_PER_REQUEST",
                             KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
                             AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}])
            ddb.put_item(TableName="Users", Item={"PK": {"S": "USER#1"}, "name": {"S": "Alice"}})
        finally:
            proc.send_signal(signal.SIGKILL)  # run.sh execs ddbd: this is the server itself
            proc.wait()
        proc, port = start_run_sh(data_dir)
        try:
            item = client(port).get_item(TableName="Users", Key={"PK": {"S": "USER#1"}})["Item"]
            assert item == {"PK": {"S": "USER#1"}, "name": {"S": "Alice"}}
        finally:
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=30) == 0
