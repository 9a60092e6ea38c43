/* SPDX-License-Identifier: ISC */
/*
 * Executable hashing off the event loop. One worker thread takes jobs from a
 * queue and posts finished ones back through a pipe watched by the loop; the
 * cache and the TOFU table are touched only from the loop thread.
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exehash.h"
#include "log.h"

#define EXEHASH_CACHE_MAX 1024
#define EXEHASH_READ_BUF  (256u << 10)

struct exehash_req {
	struct exehash_req *next;
	struct exehash *h;
	int fd;
	struct exehash_key key;
	bool ok, cancelled;
	uint8_t digest[32];
	void (*cb)(bool, const uint8_t *, void *);
	void *arg;
};

struct cache_entry {
	struct exehash_key key;
	uint8_t digest[32];
	bool used;
};

struct tofu_entry {
	char *path;
	uint8_t digest[32];
	struct tofu_entry *next;
};

struct exehash {
	struct event_base *base;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct exehash_req *todo_head, *todo_tail;
	bool stop, started;
	int done_pipe[2];
	struct event *done_ev;
	struct cache_entry cache[EXEHASH_CACHE_MAX];
	size_t cache_next;
	struct tofu_entry *tofu;
};

static bool
key_equal(const struct exehash_key *a, const struct exehash_key *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	    a->mtime.tv_sec == b->mtime.tv_sec &&
	    a->mtime.tv_nsec == b->mtime.tv_nsec &&
	    a->ctime.tv_sec == b->ctime.tv_sec &&
	    a->ctime.tv_nsec == b->ctime.tv_nsec;
}

/* Hashes fd; false when it cannot be read or its stat changed meanwhile
 * (the file was being rewritten: the digest would be of neither version). */
static bool
hash_fd(int fd, const struct exehash_key *key, uint8_t out[32])
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	uint8_t *buf = malloc(EXEHASH_READ_BUF);
	struct stat st;
	unsigned len = 0;
	bool ok = false;
	ssize_t n;

	if (md == NULL || buf == NULL ||
	    EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1)
		goto out;
	while ((n = read(fd, buf, EXEHASH_READ_BUF)) > 0)
		if (EVP_DigestUpdate(md, buf, (size_t)n) != 1)
			goto out;
	if (n < 0 || EVP_DigestFinal_ex(md, out, &len) != 1 || len != 32)
		goto out;
	if (fstat(fd, &st) == -1 || st.st_size != key->size ||
	    st.st_mtim.tv_sec != key->mtime.tv_sec ||
	    st.st_mtim.tv_nsec != key->mtime.tv_nsec)
		goto out;
	ok = true;
out:
	EVP_MD_CTX_free(md);
	free(buf);
	return ok;
}

static void *
worker(void *arg)
{
	struct exehash *h = arg;

	for (;;) {
		struct exehash_req *q;

		pthread_mutex_lock(&h->lock);
		while (h->todo_head == NULL && !h->stop)
			pthread_cond_wait(&h->cond, &h->lock);
		if (h->stop) {
			pthread_mutex_unlock(&h->lock);
			return NULL;
		}
		q = h->todo_head;
		h->todo_head = q->next;
		if (h->todo_head == NULL)
			h->todo_tail = NULL;
		pthread_mutex_unlock(&h->lock);
		q->ok = hash_fd(q->fd, &q->key, q->digest);
		close(q->fd);
		q->fd = -1;
		/* hand the finished job back to the loop thread */
		if (write(h->done_pipe[1], &q, sizeof(q)) != sizeof(q))
			log_err("exehash: cannot report a finished hash");
	}
}

static void
cache_put(
    struct exehash *h, const struct exehash_key *key, const uint8_t digest[32])
{
	struct cache_entry *c = &h->cache[h->cache_next];

	h->cache_next = (h->cache_next + 1) % EXEHASH_CACHE_MAX;
	c->key = *key;
	memcpy(c->digest, digest, 32);
	c->used = true;
}

static void
done_cb(evutil_socket_t fd, short what, void *arg)
{
	struct exehash *h = arg;
	struct exehash_req *q;

	(void)what;
	while (read(fd, &q, sizeof(q)) == sizeof(q)) {
		if (q->ok)
			cache_put(h, &q->key, q->digest);
		if (!q->cancelled)
			q->cb(q->ok, q->digest, q->arg);
		free(q);
	}
}

struct exehash *
exehash_new(struct event_base *base, char *err, size_t errlen)
{
	struct exehash *h = calloc(1, sizeof(*h));

	if (h == NULL)
		fatal("out of memory");
	h->base = base;
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->cond, NULL);
	if (pipe2(h->done_pipe, O_NONBLOCK | O_CLOEXEC) == -1) {
		snprintf(err, errlen, "exehash: pipe: %s", strerror(errno));
		free(h);
		return NULL;
	}
	h->done_ev =
	    event_new(base, h->done_pipe[0], EV_READ | EV_PERSIST, done_cb, h);
	if (h->done_ev == NULL || event_add(h->done_ev, NULL) == -1) {
		snprintf(err, errlen, "exehash: cannot watch the result pipe");
		exehash_free(h);
		return NULL;
	}
	if (pthread_create(&h->thread, NULL, worker, h) != 0) {
		snprintf(
		    err, errlen, "exehash: cannot start the hashing thread");
		exehash_free(h);
		return NULL;
	}
	h->started = true;
	return h;
}

void
exehash_free(struct exehash *h)
{
	struct tofu_entry *t, *n;
	struct exehash_req *q, *qn;

	if (h == NULL)
		return;
	if (h->started) {
		pthread_mutex_lock(&h->lock);
		h->stop = true;
		pthread_cond_signal(&h->cond);
		pthread_mutex_unlock(&h->lock);
		pthread_join(h->thread, NULL);
	}
	for (q = h->todo_head; q; q = qn) {
		qn = q->next;
		close(q->fd);
		free(q);
	}
	if (h->done_ev)
		event_free(h->done_ev);
	/* jobs finished but not yet collected */
	while (read(h->done_pipe[0], &q, sizeof(q)) == sizeof(q))
		free(q);
	close(h->done_pipe[0]);
	close(h->done_pipe[1]);
	for (t = h->tofu; t; t = n) {
		n = t->next;
		free(t->path);
		free(t);
	}
	pthread_mutex_destroy(&h->lock);
	pthread_cond_destroy(&h->cond);
	free(h);
}

bool
exehash_lookup(
    struct exehash *h, const struct exehash_key *key, uint8_t out[32])
{
	size_t i;

	for (i = 0; i < EXEHASH_CACHE_MAX; i++)
		if (h->cache[i].used && key_equal(&h->cache[i].key, key)) {
			memcpy(out, h->cache[i].digest, 32);
			return true;
		}
	return false;
}

struct exehash_req *
exehash_start(struct exehash *h, int fd, const struct exehash_key *key,
    void (*cb)(bool ok, const uint8_t digest[32], void *arg), void *arg)
{
	struct exehash_req *q = calloc(1, sizeof(*q));

	if (q == NULL) {
		close(fd);
		return NULL;
	}
	q->h = h;
	q->fd = fd;
	q->key = *key;
	q->cb = cb;
	q->arg = arg;
	pthread_mutex_lock(&h->lock);
	if (h->todo_tail)
		h->todo_tail->next = q;
	else
		h->todo_head = q;
	h->todo_tail = q;
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
	return q;
}

void
exehash_cancel(struct exehash_req *q)
{
	if (q)
		q->cancelled = true;
}

bool
exehash_tofu_check(
    struct exehash *h, const char *path, const uint8_t digest[32])
{
	struct tofu_entry *t;

	for (t = h->tofu; t; t = t->next)
		if (strcmp(t->path, path) == 0)
			return memcmp(t->digest, digest, 32) == 0;
	if ((t = calloc(1, sizeof(*t))) == NULL ||
	    (t->path = strdup(path)) == NULL)
		fatal("out of memory");
	memcpy(t->digest, digest, 32);
	t->next = h->tofu;
	h->tofu = t;
	return true;
}
