// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A plain TCP program that knows nothing of RDMA, for librspreload:
 *   socket_echo server ADDR PORT BYTES   accepts one client, echoes BYTES
 *   socket_echo client ADDR PORT BYTES   sends BYTES, checks the echo
 * Each end waits with poll(2) and reads and writes with read/write and
 * send/recv, as socket programs do. Exit 0 when every byte came back.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 13 + (i >> 10));
}

static int wait_for(int fd, short events)
{
	struct pollfd pfd = { .fd = fd, .events = events };

	return poll(&pfd, 1, 30000) == 1 ? 0 : -1;
}

static int transfer(int fd, unsigned char *buf, size_t len, int out)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n;

		if (wait_for(fd, out ? POLLOUT : POLLIN))
			return -1;
		n = out ? send(fd, buf + done, len - done, 0) :
			  read(fd, buf + done, len - done);
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	unsigned char *buf;
	size_t len, i;
	int fd, conn, one = 1;

	if (argc != 5) {
		fprintf(stderr, "usage: socket_echo server|client ADDR PORT BYTES\n");
		return 2;
	}
	sin.sin_port = htons((unsigned short)atoi(argv[3]));
	len = strtoul(argv[4], NULL, 0);
	buf = malloc(len);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (!buf || fd < 0 || inet_pton(AF_INET, argv[2], &sin.sin_addr) != 1) {
		perror("socket_echo: setup");
		return 1;
	}
	if (!strcmp(argv[1], "server")) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 1)) {
			perror("socket_echo: listen");
			return 1;
		}
		printf("socket_echo: listening\n");
		fflush(stdout);
		conn = accept(fd, NULL, NULL);
		if (conn < 0 || transfer(conn, buf, len, 0) ||
		    transfer(conn, buf, len, 1)) {
			perror("socket_echo: server");
			return 1;
		}
		printf("socket_echo: echoed %zu bytes\n", len);
		close(conn);
		close(fd);
		return 0;
	}
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("socket_echo: connect");
		return 1;
	}
	printf("socket_echo: connected\n");
	fflush(stdout);
	for (i = 0; i < len; i++)
		buf[i] = pattern(i);
	if (transfer(fd, buf, len, 1)) {
		perror("socket_echo: send");
		return 1;
	}
	memset(buf, 0, len);
	if (transfer(fd, buf, len, 0)) {
		perror("socket_echo: receive");
		return 1;
	}
	for (i = 0; i < len; i++) {
		if (buf[i] != pattern(i)) {
			fprintf(stderr, "socket_echo: byte %zu differs\n", i);
			return 1;
		}
	}
	/* still connected a moment, for whoever looks at the sockets */
	sleep(1);
	printf("socket_echo: %zu bytes came back\n", len);
	close(fd);
	return 0;
}
