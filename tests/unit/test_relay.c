/* SPDX-License-Identifier: ISC */
/*
 * The tunnel relay between two real loopback TCP connections, driven by one
 * event loop that also plays both peers: every case sends a known byte
 * pattern each way, half-closes when done, and checks that every byte
 * arrived in order, that each EOF was passed on, and how the relay ended.
 * Sizes cross the switch from read/write to splice and the pipe's growth;
 * a reader that waits until its writer is blocked exercises backpressure.
 * A relay that loses bytes leaves both peers waiting: a watchdog turns that
 * stall into a failure instead of a hung test run.
 *
 *   cpeer <--tcp--> client_fd [relay] upstream_fd <--tcp--> upeer
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

#include "relay.h"
#include "tap.h"

/* One test-side end: writes its pattern, reads and checks the other's. */
struct peer {
	int fd;
	struct event *ev;
	uint8_t seed_out, seed_in;
	size_t out_len, out_off; /* to send */
	size_t in_len, in_got;   /* expected, received */
	bool in_bad, eof, shut;
	bool paused;         /* reads nothing until the other end blocks */
	struct peer *resume; /* unpaused when this peer's write blocks (or
	                      * all of it is written) */
	bool blocked;        /* a write hit EAGAIN */
};

struct run {
	struct event_base *base;
	struct peer c, u;
	bool done;
	enum relay_end end;
};

static uint8_t
pattern(uint8_t seed, size_t i)
{
	return (uint8_t)(i * 31u + seed + (i >> 12));
}

static void peer_cb(evutil_socket_t fd, short what, void *arg);

static void
peer_arm(struct run *r, struct peer *p)
{
	short want = 0;

	if (!p->eof && !p->paused)
		want |= EV_READ;
	if (p->out_off < p->out_len || !p->shut)
		want |= EV_WRITE;
	if (p->ev)
		event_free(p->ev);
	p->ev = NULL;
	if (want) {
		p->ev = event_new(r->base, p->fd, want, peer_cb, p);
		event_add(p->ev, NULL);
	}
}

static struct run *the_run;
static const char *the_case;

static void
stalled(int sig)
{
	static const char msg[] = "not ok - stalled (bytes lost or never "
	                          "passed on): ";

	(void)sig;
	(void)!write(STDOUT_FILENO, msg, sizeof(msg) - 1);
	(void)!write(STDOUT_FILENO, the_case, strlen(the_case));
	(void)!write(STDOUT_FILENO, "\n", 1);
	_exit(1);
}

static void
peer_resume(struct peer *p)
{
	if (p && p->paused) {
		p->paused = false;
		peer_arm(the_run, p);
	}
}

static void
peer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct peer *p = arg;
	uint8_t buf[65536];
	ssize_t n;

	if ((what & EV_READ) && !p->paused) {
		while ((n = read(fd, buf, sizeof(buf))) > 0) {
			for (ssize_t i = 0; i < n; i++)
				if (buf[i] !=
				    pattern(p->seed_in, p->in_got + i))
					p->in_bad = true;
			p->in_got += (size_t)n;
		}
		if (n == 0)
			p->eof = true;
	}
	if (what & EV_WRITE) {
		while (p->out_off < p->out_len) {
			size_t len = p->out_len - p->out_off;

			if (len > sizeof(buf))
				len = sizeof(buf);
			for (size_t i = 0; i < len; i++)
				buf[i] = pattern(p->seed_out, p->out_off + i);
			n = write(fd, buf, len);
			if (n <= 0) {
				if (n == -1 && errno == EAGAIN) {
					p->blocked = true;
					peer_resume(p->resume);
				}
				break;
			}
			p->out_off += (size_t)n;
		}
		if (p->out_off == p->out_len && !p->shut) {
			/* all of it fit in the buffers on the way */
			shutdown(fd, SHUT_WR);
			p->shut = true;
			peer_resume(p->resume);
		}
	}
	peer_arm(the_run, p);
}

static void
done_cb(struct relay *rl, enum relay_end end, void *arg)
{
	struct run *r = arg;

	(void)rl;
	r->done = true;
	r->end = end;
}

/* A connected loopback pair, both ends non-blocking. */
static bool
tcp_pair(int *a, int *b)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t len = sizeof(sin);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l == -1 || bind(l, (struct sockaddr *)&sin, len) == -1 ||
	    listen(l, 1) == -1 ||
	    getsockname(l, (struct sockaddr *)&sin, &len) == -1)
		return false;
	*a = socket(AF_INET, SOCK_STREAM, 0);
	if (*a == -1 || connect(*a, (struct sockaddr *)&sin, len) == -1)
		return false;
	*b = accept(l, NULL, NULL);
	close(l);
	if (*b == -1)
		return false;
	fcntl(*a, F_SETFL, O_NONBLOCK);
	fcntl(*b, F_SETFL, O_NONBLOCK);
	return true;
}

struct relay_case {
	const char *name;
	size_t up, down;    /* bytes client -> upstream, and back */
	const char *first;  /* held client bytes released by the caller */
	bool slow_client;   /* the client reads once the upstream blocks */
	bool slow_upstream; /* the upstream reads once the client blocks */
	size_t pipe_size;   /* relay_set_pipe_size */
	bool small_buffers; /* a few KiB of socket buffer: sinks fill early */
};

static const struct relay_case cases[] = {
    {"small both ways", 100, 5000, NULL, false, false, 1u << 20, false},
    {"nothing either way", 0, 0, NULL, false, false, 1u << 20, false},
    {"8 MiB down: read/write, splice, grown pipe", 1024, 8u << 20, NULL, false,
        false, 1u << 20, false},
    {"8 MiB up: the same the other way", 8u << 20, 1024, NULL, false, false,
        1u << 20, false},
    {"8 MiB both ways at once", 8u << 20, 8u << 20, NULL, false, false,
        1u << 20, false},
    {"8 MiB down, pipes never grown (pipe size 0)", 0, 8u << 20, NULL, false,
        false, 0, false},
    {"held first bytes go first", 3000, 100, "held hello", false, false,
        1u << 20, false},
    {"client reads only once the upstream is blocked", 10, 16u << 20, NULL,
        true, false, 1u << 20, false},
    {"upstream reads only once the client is blocked", 16u << 20, 10, NULL,
        false, true, 1u << 20, false},
    {"small buffers, client blocked: leftovers while copying", 10, 1u << 20,
        NULL, true, false, 1u << 20, true},
    {"small buffers, upstream blocked: leftovers while copying", 1u << 20, 10,
        NULL, false, true, 1u << 20, true},
    {"small buffers both ways, held bytes", 1u << 20, 1u << 20, "held", false,
        false, 1u << 20, true},
};

/* A sink that takes only a few KiB at a time: a 64 KiB read from the
 * source leaves a leftover. */
static void
small_buffers(int sink)
{
	int size = 4096;

	setsockopt(sink, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
}

static void
run_case(const struct relay_case *tc)
{
	struct run r;
	int client_fd, upstream_fd;
	struct relay *rl;
	size_t first_len = tc->first ? strlen(tc->first) : 0;

	memset(&r, 0, sizeof(r));
	the_run = &r;
	the_case = tc->name;
	alarm(60); /* a watchdog, not a measurement: cases take milliseconds */
	r.base = event_base_new();
	if (!tap_ok(r.base && tcp_pair(&r.c.fd, &client_fd) &&
	            tcp_pair(&upstream_fd, &r.u.fd),
	        "%s: set up", tc->name))
		return;
	relay_set_pipe_size(tc->pipe_size);
	if (tc->small_buffers) {
		small_buffers(client_fd);
		small_buffers(upstream_fd);
	}
	/* the client's pattern continues after the held bytes */
	r.c.seed_out = 7;
	r.c.out_off = 0;
	r.c.out_len = tc->up;
	r.u.seed_in = 7;
	r.u.in_len = tc->up;
	r.u.seed_out = 91;
	r.u.out_len = tc->down;
	r.c.seed_in = 91;
	r.c.in_len = tc->down;
	r.c.paused = tc->slow_client;
	r.u.resume = &r.c;
	r.u.paused = tc->slow_upstream;
	r.c.resume = &r.u;
	rl = relay_start(
	    r.base, client_fd, upstream_fd, tc->first != NULL, done_cb, &r);
	if (!tap_ok(rl != NULL, "%s: relay_start", tc->name))
		return;
	if (tc->first) {
		/* what the upstream sees first: the held bytes */
		uint8_t got[64];
		size_t n = 0;

		relay_release_up(rl, (const uint8_t *)tc->first, first_len);
		while (n < first_len) {
			ssize_t k = read(r.u.fd, got + n, first_len - n);

			if (k > 0)
				n += (size_t)k;
			else if (k == 0 || errno != EAGAIN)
				break;
			else
				event_base_loop(r.base, EVLOOP_ONCE);
		}
		tap_ok(n == first_len && memcmp(got, tc->first, n) == 0,
		    "%s: the upstream gets the held bytes first", tc->name);
	}
	peer_arm(&r, &r.c);
	peer_arm(&r, &r.u);
	while (!(r.done && r.c.eof && r.u.eof)) {
		if (event_base_loop(r.base, EVLOOP_ONCE) != 0)
			break;
	}
	tap_ok(r.done && r.end == RELAY_END_CLOSED,
	    "%s: the relay ends closed (end %d)", tc->name, (int)r.end);
	tap_ok(r.u.in_got == tc->up && !r.u.in_bad,
	    "%s: upstream got %zu of %zu bytes, in order", tc->name, r.u.in_got,
	    tc->up);
	tap_ok(r.c.in_got == tc->down && !r.c.in_bad,
	    "%s: client got %zu of %zu bytes, in order", tc->name, r.c.in_got,
	    tc->down);
	tap_ok(r.c.eof && r.u.eof, "%s: each EOF passed on", tc->name);
	if (tc->slow_client && !tc->small_buffers)
		tap_ok(r.u.blocked, "%s: the upstream was blocked", tc->name);
	if (tc->slow_upstream && !tc->small_buffers)
		tap_ok(r.c.blocked, "%s: the client was blocked", tc->name);
	{
		uint64_t up, down;

		relay_bytes(rl, &up, &down);
		tap_ok(up == tc->up + first_len && down == tc->down,
		    "%s: relay_bytes counts %llu up, %llu down", tc->name,
		    (unsigned long long)up, (unsigned long long)down);
	}
	relay_free(rl);
	if (r.c.ev)
		event_free(r.c.ev);
	if (r.u.ev)
		event_free(r.u.ev);
	close(r.c.fd);
	close(r.u.fd);
	close(client_fd);
	close(upstream_fd);
	event_base_free(r.base);
}

int
main(void)
{
	size_t i;

	signal(SIGALRM, stalled);
	setvbuf(stdout, NULL, _IONBF, 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	alarm(0);
	return tap_done();
}
