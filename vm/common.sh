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
