/* SPDX-License-Identifier: ISC */
/*
 * A netlink socket opened inside another network namespace (the sandbox's):
 * sock_diag and ctnetlink answer about the namespace their socket lives in.
 */
#ifndef EGRESSD_NLNS_H
#define EGRESSD_NLNS_H

#include <stdbool.h>
#include <stddef.h>

struct nl_sock;

/* A libnl socket connected to netlink protocol in the network namespace
 * netns_fd (-1: ours). NULL with a message in err on failure; *stranded
 * when this thread could not return to its own namespace (the process
 * must exit). */
struct nl_sock *nlns_socket(
    int netns_fd, int protocol, char *err, size_t errlen, bool *stranded);

#endif
