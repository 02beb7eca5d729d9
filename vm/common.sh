# SPDX-License-Identifier: GPL-2.0
# Shared by the VM scripts: where the cache lives and how to complain.

CACHE=${RDMACHAN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rdmachan}

log() {
	printf 'rdmachan-vm: %s\n' "$*" >&2
}

die() {
	log "error: $*"
	exit 2
}

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# install_packages PKG...: apt-get install whichever of them are missing.
install_packages() {
	missing=""
	for p; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	log "installing:$missing"
	as_root apt-get update -qq
	# shellcheck disable=SC2086
	as_root env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# release_name NAME: the Debian codename of a release given by codename,
# number or "unstable"; fails for anything else
release_name() {
	case $1 in
	bullseye | 11 | debian11) echo bullseye ;;
	bookworm | 12 | debian12) echo bookworm ;;
	trixie | 13 | debian13) echo trixie ;;
	sid | unstable) echo sid ;;
	*) return 1 ;;
	esac
}
