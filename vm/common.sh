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

# chroot_mount ROOT: /proc, /sys and a private /dev for programs run with
# chroot in ROOT. /dev is a tmpfs with the usual nodes, not the host's:
# a removal of ROOT's tree with mounts left behind must not reach the
# host's devices. chroot_umount ROOT undoes it (and any mount below ROOT).
chroot_mount() {
	as_root mount -t proc proc "$1/proc"
	as_root mount -t sysfs sys "$1/sys"
	as_root mount -t tmpfs -o mode=755,size=1m dev "$1/dev"
	for node in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
		cm_name=${node%%:*} cm_rest=${node#*:}
		as_root mknod -m 666 "$1/dev/$cm_name" c "${cm_rest%:*}" "${cm_rest#*:}"
	done
	mkdir -p "$1/dev/pts" "$1/dev/shm"
}

chroot_umount() {
	awk -v r="$1" 'index($2, r "/") == 1 { print $2 }' /proc/mounts | sort -r |
		while read -r m; do as_root umount -l "$m"; done
}
