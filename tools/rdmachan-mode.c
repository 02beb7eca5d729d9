// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-mode: prints the data-path mode a program linked with
 * librdmachan gets here and now ("bypass" or "kernel"), the choice
 * rdmachan_get_mode() makes, RDMACHAN_MODE included. rdmachan-run asks
 * it which drop-in libraries to put first.
 */
#include <stdio.h>

#include <rdmachan/rdmachan.h>

int main(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: [RDMACHAN_MODE=kernel|bypass] rdmachan-mode\n");
		return 2;
	}
	puts(rdmachan_get_mode() == RDMACHAN_MODE_BYPASS ? "bypass" : "kernel");
	return 0;
}
