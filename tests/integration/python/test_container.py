"""The container image (docker/Dockerfile), built and run for real with podman.

Builds the image, checks its configuration and the size of its own layers, starts it on a
named volume, makes a boto3 round trip, restarts it on the same volume and reads the data
back. Skipped, with the reason, where podman cannot build (no podman, or no local
debian:bookworm-slim base image: these machines have no registry)."""
import json
import os
import shutil
import socket
import subprocess
import time
import uuid

import boto3
import botocore.config
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BASE = "docker.io/library/debian:bookworm-slim"
IMAGE = "localhost/ddbd-test:latest"
PODMAN = ["podman", "--runtime", "runc"]
LIMITS = ["--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1000:1000"]
MAX_OWN_LAYERS_MB = 60


def podman(*args, timeout=120, check=True):
    return subprocess.run([*PODMAN, *args], capture_output=True, text=True, timeout=timeout,
                          check=check)


def usable():
    if not shutil.which("podman"):
        return "podman is not installed"
    try:
        if podman("image", "exists", BASE, check=False).returncode != 0:
            return f"no local {BASE} image to build on"
    except (OSError, subprocess.SubprocessError) as error:
        return f"podman does not work here: {error}"
    return None


SKIP_REASON = usable()
pytestmark = pytest.mark.skipif(SKIP_REASON is not None, reason=SKIP_REASON or "")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def image():
    built = podman("build", "--pull=never", "--network=host", "--format", "docker", *LIMITS,
                   "-t", IMAGE, "-f", os.path.join(ROOT, "docker", "Dockerfile"), ROOT,
                   timeout=1500, check=False)
    assert built.returncode == 0, built.stdout[-4000:] + built.stderr[-4000:]
    return IMAGE


def client(port):
    return boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{port}",
                        region_name="us-east-1", aws_access_key_id="AKIDCONTAINER",
                        aws_secret_access_key="x",
                        config=botocore.config.Config(retries={"max_attempts": 1}))


def wait_serving(port, name):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            return client(port).list_tables()
        except Exception:  # not listening yet
            time.sleep(0.1)
    logs = podman("logs", name, check=False)
    raise AssertionError("container did not serve: " + logs.stdout + logs.stderr)


def test_image_configuration_and_size(image):
    config = json.loads(podman("image", "inspect", image).stdout)[0]["Config"]
    assert config["Entrypoint"] == ["ddbd"]
    assert config["Cmd"] == ["--port", "8000", "--db-path", "/data"]
    assert config["User"] == "ddbd"
    assert "8000/tcp" in config["ExposedPorts"]
    assert "/data" in config["Volumes"]
    assert config["WorkingDir"] == "/data"
    health = json.loads(podman("image", "inspect", "--format", "{{json .Config.Healthcheck}}",
                               image).stdout)
    assert "ddbd --health-check" in " ".join(health["Test"])
    history = json.loads(podman("history", "--format", "json", image).stdout)
    base_layers = len(json.loads(podman("history", "--format", "json", BASE).stdout))
    own_bytes = sum(layer["size"] for layer in history[:len(history) - base_layers])
    print(f"image layers above {BASE}: {own_bytes / 1e6:.1f} MB")
    assert own_bytes < MAX_OWN_LAYERS_MB * 1_000_000


def test_round_trip_and_restart_on_the_same_volume(image):
    volume = f"ddbd-test-{uuid.uuid4().hex[:8]}"
    port = free_port()
    names = []

    def start():
        name = f"ddbd-test-{uuid.uuid4().hex[:8]}"
        names.append(name)
        podman("run", "-d", "--name", name, "--network=host", *LIMITS, "-v", f"{volume}:/data",
               "-e", f"DDBD_HEALTH_PORT={port}", image,
               "--address", "127.0.0.1", "--port", str(port), "--db-path", "/data")
        wait_serving(port, name)
        return name

    try:
        first = start()
        assert podman("exec", first, "id", "-u").stdout.strip() == "10001"  # not root
        assert podman("healthcheck", "run", first, check=False).returncode == 0
        ddb = client(port)
        ddb.create_table(TableName="Containers", BillingMode="PAY_PER_REQUEST",
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        ddb.put_item(TableName="Containers", Item={"pk": {"S": "kept"}, "n": {"N": "42"}})
        podman("stop", "-t", "10", first)
        podman("rm", first)

        second = start()
        item = client(port).get_item(TableName="Containers", Key={"pk": {"S": "kept"}})["Item"]
        assert item == {"pk": {"S": "kept"}, "n": {"N": "42"}}
        podman("stop", "-t", "10", second)
    finally:
        for name in names:
            podman("rm", "-f", name, check=False)
        podman("volume", "rm", "-f", volume, check=False)


def test_compose_service_runs_as_written(image):
    """docker/compose.yaml's service: its build, volume, command and health check, run with
    podman (no compose here; the port mapping becomes host networking)."""
    import yaml

    with open(os.path.join(ROOT, "docker", "compose.yaml")) as f:
        service = yaml.safe_load(f)["services"]["dynamodb"]
    assert service["build"] == {"context": "..", "dockerfile": "docker/Dockerfile"}
    assert service["ports"] == ["8000:8000"]
    volume_name, mount = service["volumes"][0].split(":")
    assert mount == "/data"
    command = service["command"]
    assert command[command.index("--port") + 1] == "8000"
    assert service["healthcheck"]["test"] == ["CMD", "ddbd", "--health-check"]
    port = free_port()
    command[command.index("--port") + 1] = str(port)
    name = f"ddbd-test-{uuid.uuid4().hex[:8]}"
    volume = f"{volume_name}-{uuid.uuid4().hex[:8]}"
    try:
        podman("run", "-d", "--name", name, "--network=host", *LIMITS, "-v", f"{volume}:{mount}",
               image, *command, "--address", "127.0.0.1")
        wait_serving(port, name)
        check = service["healthcheck"]["test"][1:] + ["--port", str(port)]
        assert podman("exec", name, *check, check=False).returncode == 0
    finally:
        podman("rm", "-f", name, check=False)
        podman("volume", "rm", "-f", volume, check=False)


def test_dynamodb_local_command_line_runs_in_the_image(image):
    """What a compose file written for amazon/dynamodb-local passes as its command."""
    name = f"ddbd-test-{uuid.uuid4().hex[:8]}"
    port = free_port()
    try:
        podman("run", "-d", "--name", name, "--network=host", *LIMITS, image,
               "-jar", "DynamoDBLocal.jar", "-sharedDb", "-inMemory", "-port", str(port),
               "--address", "127.0.0.1")
        assert wait_serving(port, name)["TableNames"] == []
        assert "ignoring '-jar DynamoDBLocal.jar'" in podman("logs", name).stderr
    finally:
        podman("rm", "-f", name, check=False)
