# Sourced by the scripts that drive podman: `pod` is podman with the settings that work on a CI machine
# and in sandboxes alike. runc as the runtime and cgroupfs as the cgroup manager (crun fails where cgroups
# are in hybrid mode; systemd is not always there), and a containers.conf with no default ulimits
# (some sandboxes refuse setrlimit). CONTAINERS_CONF, when set, wins.
if [ -z "${CONTAINERS_CONF:-}" ]; then
  CONTAINERS_CONF="${RELAY_IMAGE_CACHE:-$HOME/.cache/relay-ci/images}/containers.conf"
  mkdir -p "$(dirname "$CONTAINERS_CONF")"
  [ -f "$CONTAINERS_CONF" ] || printf '[containers]\ndefault_ulimits = []\n' > "$CONTAINERS_CONF"
  export CONTAINERS_CONF
fi
pod() { podman --runtime runc --cgroup-manager cgroupfs "$@"; }
