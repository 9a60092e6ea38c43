/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/sock_diag.h>
#include <netlink/idiag/idiagnl.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "nlns.h"

struct nl_sock *
nlns_socket(
    int netns_fd, int protocol, char *err, size_t errlen, bool *stranded)
{
	struct nl_sock *nl = NULL;
	int orig = -1, rc;

	*stranded = false;
	if (netns_fd >= 0) {
		/* setns() moves only this thread: remember this thread's. */
		orig = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
		if (orig < 0) {
			snprintf(err, errlen,
			    "open /proc/thread-self/ns/net: %s",
			    strerror(errno));
			return NULL;
		}
		if (setns(netns_fd, CLONE_NEWNET) != 0) {
			snprintf(err, errlen,
			    "setns into the sandbox network namespace: %s",
			    strerror(errno));
			close(orig);
			return NULL;
		}
	}
	nl = nl_socket_alloc();
	if (nl == NULL) {
		snprintf(err, errlen, "nl_socket_alloc failed");
	} else if ((rc = protocol == NETLINK_SOCK_DIAG ?
	                   idiagnl_connect(nl) :
	                   nl_connect(nl, protocol)) < 0) {
		snprintf(err, errlen, "%s netlink socket: %s",
		    protocol == NETLINK_SOCK_DIAG     ? "sock_diag" :
		        protocol == NETLINK_NETFILTER ? "ctnetlink" :
		                                        "a",
		    nl_geterror(rc));
		nl_socket_free(nl);
		nl = NULL;
	}
	if (orig >= 0) {
		if (setns(orig, CLONE_NEWNET) != 0) {
			snprintf(err, errlen,
			    "cannot return to the original network namespace "
			    "(%s): exiting is the only safe option",
			    strerror(errno));
			*stranded = true;
			if (nl != NULL)
				nl_socket_free(nl);
			nl = NULL;
		}
		close(orig);
	}
	return nl;
}
