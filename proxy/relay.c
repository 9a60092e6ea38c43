/* SPDX-License-Identifier: ISC */
/*
 * Bidirectional relay. Each direction moves its source's bytes to its sink
 * in one of two ways, and owns what is waiting in between:
 *
 *   copy    read() into a buffer shared by every relay, write() out; what
 *           the sink does not take is kept in a buffer of the direction's
 *           own, exactly as large as the leftover. Every direction starts
 *           here: a handshake, a request or an interactive session costs no
 *           pipe (two fds and kernel pages per direction), and a short read
 *           says the socket is empty without a second read to hear EAGAIN.
 *   splice  once a direction has moved RELAY_SPLICE_AFTER bytes, a pipe of
 *           its own and splice(2) in and out: zero copy. Once it has moved
 *           RELAY_GROW_AFTER bytes, the pipe grows to the bulk size
 *           (relay_set_pipe_size): fewer and larger splices for a download
 *           or an upload, while idle and small tunnels hold no pipe at all.
 *
 *   client --read|splice--> leftover|pipe UP   --write|splice--> upstream
 *   client <--write|splice-- leftover|pipe DOWN <--read|splice-- upstream
 *
 * The source is not read again until nothing waits: memory per tunnel is
 * bounded by one read's leftover or by the pipe, and a client that never
 * reads holds at most that. EOF on a source is passed on as
 * shutdown(SHUT_WR) on its sink once nothing waits; the relay ends when both
 * directions have ended.
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "relay.h"

#define RELAY_COPY_BUF     (64u << 10)  /* one read in copy mode */
#define RELAY_SPLICE_AFTER (128u << 10) /* bytes moved before splicing */
#define RELAY_GROW_AFTER   (1u << 20)   /* bytes moved before growing */
#define RELAY_PIPE_DEFAULT (64u << 10)  /* what pipe(2) gives (Linux) */
#define RELAY_ROUND_MIN    (1u << 20)   /* per callback, for fairness */

enum { DIR_UP, DIR_DOWN };

struct relay_dir {
	int from, to;
	int pipe_r, pipe_w; /* -1 until the direction splices */
	size_t pipe_size;   /* its capacity */
	size_t in_pipe;     /* bytes waiting in the pipe */
	uint8_t *left;      /* copy mode: bytes the sink has not taken */
	size_t left_off, left_len;
	bool no_pipe; /* none could be had: copy mode for good */
	bool grown;   /* the bulk size was asked for (once) */
	bool eof, ended;
	struct event *rd, *wr;
	uint64_t bytes;
};

struct relay {
	struct event_base *base;
	struct relay_dir dir[2];
	struct event *finish; /* runs done() from the loop */
	enum relay_end end;
	bool ending;
	uint64_t last_ms;
	void (*done)(struct relay *, enum relay_end, void *);
	void *arg;
};

/* Copy mode reads here: one loop, one callback at a time. */
static uint8_t relay_copy_buf[RELAY_COPY_BUF];
static size_t relay_bulk_pipe_size = RELAY_BULK_PIPE_DEFAULT;

void
relay_set_pipe_size(size_t bytes)
{
	relay_bulk_pipe_size = bytes;
}

static void
relay_end(struct relay *r, enum relay_end end)
{
	int i;

	if (r->ending)
		return;
	r->ending = true;
	r->end = end;
	for (i = 0; i < 2; i++) {
		event_del(r->dir[i].rd);
		event_del(r->dir[i].wr);
	}
	event_active(r->finish, 0, 0);
}

static void
finish_cb(evutil_socket_t fd, short what, void *arg)
{
	struct relay *r = arg;

	(void)fd;
	(void)what;
	r->done(r, r->end, r->arg);
}

/* Turns a direction that has moved enough into splice mode, and a pipe that
 * has carried enough into a bulk one. Nothing may be waiting in copy mode. */
static void
dir_upgrade(struct relay_dir *d)
{
	int p[2];

	if (d->no_pipe || d->left_len > 0)
		return;
	if (d->pipe_r == -1) {
		if (d->bytes < RELAY_SPLICE_AFTER)
			return;
		if (pipe2(p, O_NONBLOCK | O_CLOEXEC) == -1) {
			/* fd pressure: carry on copying */
			d->no_pipe = true;
			return;
		}
		d->pipe_r = p[0];
		d->pipe_w = p[1];
		d->pipe_size = RELAY_PIPE_DEFAULT;
	}
	if (!d->grown && d->bytes >= RELAY_GROW_AFTER &&
	    relay_bulk_pipe_size > d->pipe_size) {
		int n;

		/* Asked once: over the system's pipe limits it fails and
		 * the pipe stays as it is. */
		d->grown = true;
		n = fcntl(d->pipe_w, F_SETPIPE_SZ, (int)relay_bulk_pipe_size);
		if (n > 0)
			d->pipe_size = (size_t)n;
	}
}

static void
dir_close_pipe(struct relay_dir *d)
{
	if (d->pipe_r != -1) {
		close(d->pipe_r);
		close(d->pipe_w);
		d->pipe_r = d->pipe_w = -1;
	}
}

/* Direction finished: pass the EOF on. */
static void
dir_ended(struct relay *r, struct relay_dir *d)
{
	d->ended = true;
	event_del(d->rd);
	event_del(d->wr);
	shutdown(d->to, SHUT_WR);
	dir_close_pipe(d);
	free(d->left);
	d->left = NULL;
	if (r->dir[DIR_UP].ended && r->dir[DIR_DOWN].ended)
		relay_end(r, RELAY_END_CLOSED);
}

static enum relay_end
err_side(int di, bool reading)
{
	/* UP reads the client and writes upstream; DOWN the reverse. */
	if (di == DIR_UP)
		return reading ? RELAY_END_CLIENT_ERR : RELAY_END_UPSTREAM_ERR;
	return reading ? RELAY_END_UPSTREAM_ERR : RELAY_END_CLIENT_ERR;
}

static void
dir_moved(struct relay *r, struct relay_dir *d, size_t n)
{
	d->bytes += (uint64_t)n;
	r->last_ms = clock_ms();
}

/*
 * Writes p[0..len) to the sink; keeps what it does not take as the
 * direction's leftover (p may be the shared buffer). Returns 1 when all
 * went out, 0 when the sink would block, -1 on error (or no memory).
 */
static int
dir_write(struct relay *r, struct relay_dir *d, const uint8_t *p, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = write(d->to, p + off, len - off);

		if (n > 0) {
			off += (size_t)n;
			dir_moved(r, d, (size_t)n);
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			break;
		return -1;
	}
	if (off == len)
		return 1;
	if ((d->left = malloc(len - off)) == NULL)
		return -1;
	memcpy(d->left, p + off, len - off);
	d->left_off = 0;
	d->left_len = len - off;
	return 0;
}

/* Flushes what waits for the sink. Returns 1 when nothing waits, 0 when the
 * sink would block, -1 on error. */
static int
dir_flush(struct relay *r, struct relay_dir *d)
{
	while (d->left_len > 0) {
		ssize_t n = write(d->to, d->left + d->left_off, d->left_len);

		if (n > 0) {
			d->left_off += (size_t)n;
			d->left_len -= (size_t)n;
			dir_moved(r, d, (size_t)n);
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		return n == -1 && errno == EAGAIN ? 0 : -1;
	}
	if (d->left) {
		free(d->left);
		d->left = NULL;
	}
	while (d->in_pipe > 0) {
		ssize_t n = splice(d->pipe_r, NULL, d->to, NULL, d->in_pipe,
		    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

		if (n > 0) {
			d->in_pipe -= (size_t)n;
			dir_moved(r, d, (size_t)n);
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		return n == -1 && errno == EAGAIN ? 0 : -1;
	}
	return 1;
}

/* Moves data from source to sink until either would block (or a round's
 * worth has moved: other tunnels get their turn). */
static void
dir_pump(struct relay *r, int di)
{
	struct relay_dir *d = &r->dir[di];
	uint64_t start = d->bytes;

	for (;;) {
		ssize_t n;
		int f = dir_flush(r, d);
		size_t round;

		if (f < 0) {
			relay_end(r, err_side(di, false));
			return;
		}
		if (f == 0) {
			/* sink full: stop reading until it drains */
			event_del(d->rd);
			event_add(d->wr, NULL);
			return;
		}
		event_del(d->wr);
		if (d->eof) {
			dir_ended(r, d);
			return;
		}
		dir_upgrade(d);
		round = 2 * d->pipe_size > RELAY_ROUND_MIN ? 2 * d->pipe_size :
		                                             RELAY_ROUND_MIN;
		if (d->bytes - start >= round) {
			event_add(d->rd, NULL);
			return;
		}
		if (d->pipe_r == -1) {
			n = read(
			    d->from, relay_copy_buf, sizeof(relay_copy_buf));
			if (n > 0) {
				f = dir_write(r, d, relay_copy_buf, (size_t)n);
				if (f < 0) {
					relay_end(r, err_side(di, false));
					return;
				}
				/* short read: the socket is empty for now */
				if (f == 1 &&
				    (size_t)n < sizeof(relay_copy_buf)) {
					event_add(d->rd, NULL);
					return;
				}
				continue;
			}
		} else {
			n = splice(d->from, NULL, d->pipe_w, NULL, d->pipe_size,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				d->in_pipe = (size_t)n;
				continue;
			}
		}
		if (n == 0) {
			d->eof = true;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			event_add(d->rd, NULL);
			return;
		}
		relay_end(r, err_side(di, true));
		return;
	}
}

static void
up_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	dir_pump(arg, DIR_UP);
}

static void
down_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	dir_pump(arg, DIR_DOWN);
}

struct relay *
relay_start(struct event_base *base, int client_fd, int upstream_fd,
    bool hold_up, void (*done)(struct relay *r, enum relay_end end, void *arg),
    void *arg)
{
	struct relay *r = calloc(1, sizeof(*r));
	int i;

	if (r == NULL)
		return NULL;
	r->base = base;
	r->done = done;
	r->arg = arg;
	r->last_ms = clock_ms();
	r->dir[DIR_UP].from = client_fd;
	r->dir[DIR_UP].to = upstream_fd;
	r->dir[DIR_DOWN].from = upstream_fd;
	r->dir[DIR_DOWN].to = client_fd;
	for (i = 0; i < 2; i++) {
		struct relay_dir *d = &r->dir[i];
		void (*cb)(evutil_socket_t, short, void *) =
		    i == DIR_UP ? up_cb : down_cb;

		d->pipe_r = d->pipe_w = -1;
		d->rd = event_new(base, d->from, EV_READ | EV_PERSIST, cb, r);
		d->wr = event_new(base, d->to, EV_WRITE | EV_PERSIST, cb, r);
		if (d->rd == NULL || d->wr == NULL)
			goto fail;
	}
	if ((r->finish = event_new(base, -1, 0, finish_cb, r)) == NULL)
		goto fail;
	/* Nothing is read before the loop says there is something: a fresh
	 * upstream has rarely spoken yet. */
	event_add(r->dir[DIR_DOWN].rd, NULL);
	if (!hold_up)
		event_add(r->dir[DIR_UP].rd, NULL);
	return r;
fail:
	relay_free(r);
	return NULL;
}

void
relay_release_up(struct relay *r, const uint8_t *first, size_t len)
{
	struct relay_dir *d = &r->dir[DIR_UP];

	if (r->ending)
		return;
	if (len) {
		int f = dir_write(r, d, first, len);

		if (f < 0) {
			relay_end(r, RELAY_END_UPSTREAM_ERR);
			return;
		}
		if (f == 0) {
			event_add(d->wr, NULL);
			return;
		}
	}
	event_add(d->rd, NULL);
}

void
relay_free(struct relay *r)
{
	int i;

	if (r == NULL)
		return;
	for (i = 0; i < 2; i++) {
		if (r->dir[i].rd)
			event_free(r->dir[i].rd);
		if (r->dir[i].wr)
			event_free(r->dir[i].wr);
		dir_close_pipe(&r->dir[i]);
		free(r->dir[i].left);
	}
	if (r->finish)
		event_free(r->finish);
	free(r);
}

void
relay_bytes(const struct relay *r, uint64_t *up, uint64_t *down)
{
	*up = r->dir[DIR_UP].bytes;
	*down = r->dir[DIR_DOWN].bytes;
}

uint64_t
relay_last_active_ms(const struct relay *r)
{
	return r->last_ms;
}
