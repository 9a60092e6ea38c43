/* SPDX-License-Identifier: ISC */
/*
 * Network benchmarks against a running egressd: new HTTPS connections
 * (direct, through CONNECT, redirected) and DNS answers, the measured paths
 * interleaved sample by sample in one process, and many idle CONNECT tunnels
 * with egressd's memory read around them. Owns its sockets and the namespace
 * switches (setns before each socket); leaves the namespaces, egressd and the
 * world to tests/bench/run.sh.
 *
 *   netbench conn [-n SAMPLES] [-w WARMUP] -C CAFILE -H HOST[:PORT] MODE...
 *       MODE is LABEL:NETNS:ADDR:PORT[:connect]. Each sample opens a new TCP
 *       connection to ADDR:PORT inside NETNS (":connect": a proxy, asked for
 *       CONNECT HOST:PORT first), does a full TLS handshake (no resumption)
 *       with SNI HOST, sends "GET /" and stops the clock at the first byte
 *       of the response. Samples of the modes alternate.
 *   netbench dns [-n SAMPLES] [-w WARMUP] NAME MODE...
 *       MODE is LABEL:NETNS:ADDR:PORT: one UDP query for NAME A at a time,
 *       timed from send to the matching answer. Servers alternate.
 *   netbench tunnels -N COUNT [-f] [-R] -e PID -x NETNS:ADDR:PORT -t HOST:PORT
 *       Opens COUNT CONNECT tunnels to HOST:PORT (where a sink listens)
 *       through the proxy at -x; unless -f (fresh), one byte then crosses
 *       each tunnel and comes back, so that every tunnel is past the
 *       inspection of its first bytes and relaying, then idle. Reads
 *       egressd's (PID) VmRSS and open fds before and with all tunnels
 *       open; with -R also after closing them all and with all of them
 *       open a second time (memory must be reused, not added to).
 *   netbench sink ADDR:PORT
 *       The far end for "tunnels", started in the world namespace: accepts
 *       everything, echoes what arrives, closes on EOF; runs until killed.
 *       A process of its own, outside the sandbox, so that its sockets are
 *       not among those egressd's caller lookup goes through.
 *
 * NETNS is a name under /run/netns, a path, or "-" (the current namespace).
 * Output: "name value unit" lines; errors and progress on stderr. Exit 0 when
 * every sample succeeded, 1 otherwise.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#define NB_MAX_MODES   8
#define NB_MAX_SAMPLES 100000
#define NB_TIMEOUT_MS  5000
#define NB_HEAD_MAX    1024

struct nb_mode {
	char label[32];
	int nsfd; /* -1: the current namespace */
	struct sockaddr_in addr;
	bool connect; /* addr is a proxy: CONNECT first */
	/* per sample, microseconds from the start of connect() */
	double *tcp, *tunnel, *tls, *ttfb;
	size_t n;
	unsigned errors;
	int sock; /* dns: one connected UDP socket */
};

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void
die(const char *what)
{
	perror(what);
	exit(2);
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: netbench conn [-n SAMPLES] [-w WARMUP] -C CAFILE -H HOST[:PORT] LABEL:NETNS:ADDR:PORT[:connect]...\n"
	    "       netbench dns [-n SAMPLES] [-w WARMUP] NAME LABEL:NETNS:ADDR:PORT...\n"
	    "       netbench tunnels -N COUNT [-f] [-R] -e PID -x NETNS:ADDR:PORT -t HOST:PORT\n"
	    "       netbench sink ADDR:PORT\n");
	exit(2);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Percentile p (0..1) of v[0..n), sorting v. */
static double
pct(double *v, size_t n, double p)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return v[(size_t)(p * (double)(n - 1) + 0.5)];
}

/* ---- namespaces and addresses --------------------------------------------- */

static int
ns_open(const char *spec)
{
	char path[PATH_MAX];
	int fd;

	if (strcmp(spec, "-") == 0)
		return -1;
	if (strchr(spec, '/'))
		snprintf(path, sizeof(path), "%s", spec);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", spec);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		die(path);
	return fd;
}

static int home_ns = -1;

/* Enters nsfd (-1: the namespace netbench started in). */
static void
ns_enter(int nsfd)
{
	static int cur = -2;

	if (home_ns == -1 &&
	    (home_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) == -1)
		die("/proc/self/ns/net");
	if (nsfd == cur)
		return;
	if (setns(nsfd == -1 ? home_ns : nsfd, CLONE_NEWNET) == -1)
		die("setns");
	cur = nsfd;
}

static void
parse_addr(const char *a, const char *p, struct sockaddr_in *out)
{
	memset(out, 0, sizeof(*out));
	out->sin_family = AF_INET;
	out->sin_port = htons((uint16_t)atoi(p));
	if (inet_pton(AF_INET, a, &out->sin_addr) != 1 || atoi(p) <= 0) {
		fprintf(stderr, "netbench: bad address %s:%s\n", a, p);
		exit(2);
	}
}

/* "NETNS:ADDR:PORT" -> namespace fd and address. */
static void
parse_where(char *spec, int *nsfd, struct sockaddr_in *sa)
{
	char *ns = strtok(spec, ":"), *a = strtok(NULL, ":"),
	     *p = strtok(NULL, ":");

	if (ns == NULL || a == NULL || p == NULL)
		usage();
	*nsfd = ns_open(ns);
	parse_addr(a, p, sa);
}

/* "LABEL:NETNS:ADDR:PORT[:connect]" */
static void
parse_mode(char *spec, struct nb_mode *m, size_t samples)
{
	char *label = strtok(spec, ":"), *ns = strtok(NULL, ":"),
	     *a = strtok(NULL, ":"), *p = strtok(NULL, ":"),
	     *kind = strtok(NULL, ":");

	if (label == NULL || ns == NULL || a == NULL || p == NULL)
		usage();
	memset(m, 0, sizeof(*m));
	snprintf(m->label, sizeof(m->label), "%s", label);
	m->nsfd = ns_open(ns);
	parse_addr(a, p, &m->addr);
	if (kind && strcmp(kind, "connect") == 0)
		m->connect = true;
	else if (kind)
		usage();
	m->tcp = calloc(samples, sizeof(double));
	m->tunnel = calloc(samples, sizeof(double));
	m->tls = calloc(samples, sizeof(double));
	m->ttfb = calloc(samples, sizeof(double));
	if (!m->tcp || !m->tunnel || !m->tls || !m->ttfb)
		die("calloc");
	m->sock = -1;
}

static void
mode_free(struct nb_mode *m)
{
	free(m->tcp);
	free(m->tunnel);
	free(m->tls);
	free(m->ttfb);
	if (m->nsfd != -1)
		close(m->nsfd);
	if (m->sock != -1)
		close(m->sock);
}

static void
set_timeouts(int fd)
{
	struct timeval tv = {NB_TIMEOUT_MS / 1000, 0};
	int one = 1;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	/* as curl does: requests go out at once */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static bool
write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w <= 0) {
			if (w == -1 && errno == EINTR)
				continue;
			return false;
		}
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/*
 * Sends CONNECT host:port and reads the reply head. Returns true on 200.
 * The proxy sends nothing after the head before the client speaks, so a
 * read never takes tunnel bytes.
 */
static bool
proxy_connect(int fd, const char *hostport)
{
	char req[512], head[NB_HEAD_MAX + 1];
	size_t len = 0;

	snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n",
	    hostport, hostport);
	if (!write_all(fd, req, strlen(req)))
		return false;
	for (;;) {
		ssize_t r = read(fd, head + len, NB_HEAD_MAX - len);

		if (r <= 0) {
			if (r == -1 && errno == EINTR)
				continue;
			return false;
		}
		len += (size_t)r;
		head[len] = '\0';
		if (strstr(head, "\r\n\r\n"))
			break;
		if (len == NB_HEAD_MAX)
			return false;
	}
	return strncmp(head, "HTTP/1.1 200", 12) == 0 ||
	    strncmp(head, "HTTP/1.0 200", 12) == 0;
}

/* A pause between samples, so that each starts with the previous
 * connection's teardown finished everywhere (client, proxy, server). */
static void
pause_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};

	if (us > 0)
		nanosleep(&ts, NULL);
}

/* ---- conn ----------------------------------------------------------------- */

struct conn_cfg {
	SSL_CTX *ctx;
	char host[256];     /* SNI, Host header, certificate name */
	char hostport[300]; /* CONNECT target */
};

/* One sample; records it in m unless warm. */
static bool
conn_sample(const struct conn_cfg *cfg, struct nb_mode *m, bool warm)
{
	char req[512], buf[4096];
	double t0, t_tcp, t_tun, t_tls, t_fb;
	SSL *ssl = NULL;
	bool ok = false;
	int fd, r;

	ns_enter(m->nsfd);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		die("socket");
	errno = 0;
	set_timeouts(fd);
	snprintf(req, sizeof(req),
	    "GET / HTTP/1.1\r\nHost: %s\r\nUser-Agent: netbench\r\nConnection: close\r\n\r\n",
	    cfg->host);
	if ((ssl = SSL_new(cfg->ctx)) == NULL)
		goto out;
	SSL_set_tlsext_host_name(ssl, cfg->host);
	SSL_set1_host(ssl, cfg->host);

	t0 = now_us();
	if (connect(fd, (struct sockaddr *)&m->addr, sizeof(m->addr)) == -1)
		goto out;
	t_tcp = now_us();
	if (m->connect && !proxy_connect(fd, cfg->hostport))
		goto out;
	t_tun = now_us();
	SSL_set_fd(ssl, fd);
	if (SSL_connect(ssl) != 1)
		goto out;
	t_tls = now_us();
	if (SSL_write(ssl, req, (int)strlen(req)) <= 0)
		goto out;
	if (SSL_read(ssl, buf, sizeof(buf)) <= 0)
		goto out;
	t_fb = now_us();
	/* the rest of the (small) response and the close, untimed, so that
	 * the connection is gone before the next sample */
	while ((r = SSL_read(ssl, buf, sizeof(buf))) > 0)
		;
	ok = true;
	if (!warm) {
		m->tcp[m->n] = t_tcp - t0;
		m->tunnel[m->n] = t_tun - t0;
		m->tls[m->n] = t_tls - t0;
		m->ttfb[m->n] = t_fb - t0;
		m->n++;
	}
out:
	if (!ok) {
		m->errors++;
		if (m->errors <= 3) {
			fprintf(stderr, "netbench: %s: sample failed (%s)\n",
			    m->label, errno ? strerror(errno) : "TLS");
			ERR_print_errors_fp(stderr);
		}
	}
	SSL_free(ssl);
	close(fd);
	return ok;
}

static void
print_stat(const char *prefix, const char *label, const char *what, double *v,
    size_t n)
{
	printf(
	    "%s_%s_%s_median %.1f us\n", prefix, label, what, pct(v, n, 0.5));
}

static int
cmd_conn(int argc, char **argv)
{
	struct nb_mode modes[NB_MAX_MODES];
	struct conn_cfg cfg;
	size_t nmodes = 0, samples = 300, warmup = 20, i, k;
	const char *cafile = NULL, *host = NULL;
	long gap_us = 0;
	unsigned errors = 0;
	int ch;

	while ((ch = getopt(argc, argv, "n:w:C:H:g:")) != -1) {
		switch (ch) {
		case 'g':
			gap_us = atol(optarg);
			break;
		case 'n':
			samples = (size_t)atol(optarg);
			break;
		case 'w':
			warmup = (size_t)atol(optarg);
			break;
		case 'C':
			cafile = optarg;
			break;
		case 'H':
			host = optarg;
			break;
		default:
			usage();
		}
	}
	if (cafile == NULL || host == NULL || optind == argc ||
	    argc - optind > NB_MAX_MODES || samples < 1 ||
	    samples > NB_MAX_SAMPLES)
		usage();
	memset(&cfg, 0, sizeof(cfg));
	snprintf(
	    cfg.host, sizeof(cfg.host), "%.*s", (int)strcspn(host, ":"), host);
	snprintf(cfg.hostport, sizeof(cfg.hostport), "%s%s", host,
	    strchr(host, ':') ? "" : ":443");
	for (i = (size_t)optind; i < (size_t)argc; i++)
		parse_mode(argv[i], &modes[nmodes++], samples);

	/* a fresh full handshake every time, as a new process would do */
	if ((cfg.ctx = SSL_CTX_new(TLS_client_method())) == NULL)
		die("SSL_CTX_new");
	SSL_CTX_set_session_cache_mode(cfg.ctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_options(cfg.ctx, SSL_OP_NO_TICKET);
	SSL_CTX_set_verify(cfg.ctx, SSL_VERIFY_PEER, NULL);
	if (SSL_CTX_load_verify_locations(cfg.ctx, cafile, NULL) != 1) {
		ERR_print_errors_fp(stderr);
		exit(2);
	}

	for (i = 0; i < warmup; i++)
		for (k = 0; k < nmodes; k++)
			conn_sample(&cfg, &modes[k], true);
	for (i = 0; i < samples; i++)
		for (k = 0; k < nmodes; k++) {
			pause_us(gap_us);
			conn_sample(&cfg, &modes[k], false);
		}

	for (k = 0; k < nmodes; k++) {
		struct nb_mode *m = &modes[k];

		printf("conn_%s_samples %zu count\n", m->label, m->n);
		printf("conn_%s_errors %u count\n", m->label, m->errors);
		print_stat("conn", m->label, "tcp", m->tcp, m->n);
		if (m->connect)
			print_stat("conn", m->label, "tunnel", m->tunnel, m->n);
		print_stat("conn", m->label, "tls", m->tls, m->n);
		print_stat("conn", m->label, "ttfb", m->ttfb, m->n);
		printf("conn_%s_ttfb_p10 %.1f us\n", m->label,
		    pct(m->ttfb, m->n, 0.1));
		printf("conn_%s_ttfb_p90 %.1f us\n", m->label,
		    pct(m->ttfb, m->n, 0.9));
		errors += m->errors;
		mode_free(m);
	}
	SSL_CTX_free(cfg.ctx);
	return errors ? 1 : 0;
}

/* ---- dns ------------------------------------------------------------------ */

static size_t
dns_query(uint8_t *q, size_t cap, uint16_t id, const char *name)
{
	size_t off = 12;
	const char *p = name;

	memset(q, 0, 12);
	q[0] = (uint8_t)(id >> 8);
	q[1] = (uint8_t)id;
	q[2] = 0x01; /* RD */
	q[5] = 1;    /* QDCOUNT */
	while (*p) {
		size_t l = strcspn(p, ".");

		if (l == 0 || l > 63 || off + l + 1 + 5 > cap) {
			fprintf(stderr, "netbench: bad name %s\n", name);
			exit(2);
		}
		q[off++] = (uint8_t)l;
		memcpy(q + off, p, l);
		off += l;
		p += l;
		if (*p == '.')
			p++;
	}
	q[off++] = 0;
	q[off++] = 0;
	q[off++] = 1; /* A */
	q[off++] = 0;
	q[off++] = 1; /* IN */
	return off;
}

/* One query; returns true on a NOERROR answer with at least one record. */
static bool
dns_sample(struct nb_mode *m, const char *name, uint16_t id, bool warm)
{
	uint8_t q[512], a[4096];
	size_t qlen = dns_query(q, sizeof(q), id, name);
	double t0, t1;
	ssize_t r;

	errno = 0;
	t0 = now_us();
	if (send(m->sock, q, qlen, 0) != (ssize_t)qlen)
		goto fail;
	for (;;) {
		r = recv(m->sock, a, sizeof(a), 0);
		if (r < 0)
			goto fail;
		/* a late answer to an earlier query: skip it */
		if (r >= 12 && a[0] == q[0] && a[1] == q[1])
			break;
	}
	t1 = now_us();
	if ((a[2] & 0x80) == 0 || (a[3] & 0x0f) != 0 || (a[6] | a[7]) == 0)
		goto fail;
	if (!warm)
		m->ttfb[m->n++] = t1 - t0;
	return true;
fail:
	m->errors++;
	if (m->errors <= 3)
		fprintf(stderr, "netbench: dns %s: query failed (%s)\n",
		    m->label, errno ? strerror(errno) : "bad answer");
	return false;
}

static int
cmd_dns(int argc, char **argv)
{
	struct nb_mode modes[NB_MAX_MODES];
	size_t nmodes = 0, samples = 2000, warmup = 1, i, k;
	const char *name;
	unsigned errors = 0;
	uint16_t id = (uint16_t)getpid();
	int ch;

	while ((ch = getopt(argc, argv, "n:w:")) != -1) {
		switch (ch) {
		case 'n':
			samples = (size_t)atol(optarg);
			break;
		case 'w':
			warmup = (size_t)atol(optarg);
			break;
		default:
			usage();
		}
	}
	if (argc - optind < 2 || argc - optind - 1 > NB_MAX_MODES ||
	    samples < 1 || samples > NB_MAX_SAMPLES)
		usage();
	name = argv[optind];
	for (i = (size_t)optind + 1; i < (size_t)argc; i++) {
		struct nb_mode *m = &modes[nmodes++];

		parse_mode(argv[i], m, samples);
		ns_enter(m->nsfd);
		if ((m->sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) ==
		    -1)
			die("socket");
		set_timeouts(m->sock);
		if (connect(m->sock, (struct sockaddr *)&m->addr,
		        sizeof(m->addr)) == -1)
			die("connect");
	}
	for (i = 0; i < warmup; i++)
		for (k = 0; k < nmodes; k++)
			dns_sample(&modes[k], name, ++id, true);
	for (i = 0; i < samples; i++)
		for (k = 0; k < nmodes; k++)
			dns_sample(&modes[k], name, ++id, false);
	for (k = 0; k < nmodes; k++) {
		struct nb_mode *m = &modes[k];

		printf("dns_%s_samples %zu count\n", m->label, m->n);
		printf("dns_%s_errors %u count\n", m->label, m->errors);
		printf("dns_%s_median %.1f us\n", m->label,
		    pct(m->ttfb, m->n, 0.5));
		printf(
		    "dns_%s_p10 %.1f us\n", m->label, pct(m->ttfb, m->n, 0.1));
		printf(
		    "dns_%s_p90 %.1f us\n", m->label, pct(m->ttfb, m->n, 0.9));
		errors += m->errors;
		mode_free(m);
	}
	return errors ? 1 : 0;
}

/* ---- tunnels -------------------------------------------------------------- */

struct tun_cfg {
	int proxy_ns;
	struct sockaddr_in proxy;
	const char *target;
	pid_t pid;
	bool fresh;
	double *open_us; /* time to open each tunnel, first pass */
};

/* egressd's VmRSS in bytes. */
static long long
proc_rss(pid_t pid)
{
	char path[64], line[256];
	long long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		die(path);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %lld kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/* egressd's open sockets and pipes: what tunnels cost it in fds (its
 * /proc and pidfd handles come and go with the caller cache). */
static long
proc_fds(pid_t pid)
{
	char path[64], link[64];
	struct dirent *e;
	long n = 0;
	DIR *d;
	int dfd;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	if ((d = opendir(path)) == NULL)
		die(path);
	dfd = dirfd(d);
	while ((e = readdir(d)) != NULL) {
		ssize_t l;

		if (e->d_name[0] == '.')
			continue;
		l = readlinkat(dfd, e->d_name, link, sizeof(link) - 1);
		if (l <= 0)
			continue;
		link[l] = '\0';
		if (strncmp(link, "socket:", 7) == 0 ||
		    strncmp(link, "pipe:", 5) == 0)
			n++;
	}
	closedir(d);
	return n;
}

/* RSS once it stopped moving (egressd may still be finishing a log line). */
static long long
settled_rss(pid_t pid)
{
	long long a = proc_rss(pid), b;
	int i;

	for (i = 0; i < 50; i++) {
		pause_us(20000);
		if ((b = proc_rss(pid)) == a)
			break;
		a = b;
	}
	return a;
}

/* One tunnel: CONNECT answered, and unless fresh, one byte there and back
 * (the sink echoes), so that it is past the inspection of the first client
 * bytes (not TLS: passed as is) and relaying both ways. */
static int
tun_open(const struct tun_cfg *cfg)
{
	char b;
	int fd;

	errno = 0;
	ns_enter(cfg->proxy_ns);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		perror("netbench: socket");
		return -1;
	}
	set_timeouts(fd);
	if (connect(fd, (const struct sockaddr *)&cfg->proxy,
	        sizeof(cfg->proxy)) == -1 ||
	    !proxy_connect(fd, cfg->target)) {
		fprintf(stderr, "netbench: CONNECT %s failed (%s)\n",
		    cfg->target, errno ? strerror(errno) : "refused");
		close(fd);
		return -1;
	}
	if (!cfg->fresh && (write(fd, "x", 1) != 1 || read(fd, &b, 1) != 1)) {
		fprintf(stderr, "netbench: no byte across the tunnel\n");
		close(fd);
		return -1;
	}
	return fd;
}

/* Opens n tunnels into fds[]; returns how many opened. */
static size_t
tun_open_all(const struct tun_cfg *cfg, int *fds, size_t n, double *open_us)
{
	size_t i;

	for (i = 0; i < n; i++) {
		double t0 = now_us();

		if ((fds[i] = tun_open(cfg)) == -1)
			break;
		if (open_us)
			open_us[i] = now_us() - t0;
	}
	return i;
}

/* Closes them and waits until egressd's fd count is back to fds0. */
static long
tun_close_all(const struct tun_cfg *cfg, int *fds, size_t n, long fds0)
{
	double until;
	size_t i;
	long left;

	for (i = 0; i < n; i++)
		close(fds[i]);
	until = now_us() + 30e6;
	while ((left = proc_fds(cfg->pid)) > fds0 && now_us() < until)
		pause_us(10000);
	return left;
}

static int
cmd_tunnels(int argc, char **argv)
{
	struct tun_cfg cfg;
	struct rlimit rl;
	int *fds;
	double *open_us;
	size_t n = 5000, got, got2 = 0, k;
	long long rss0, rss1, rss2 = 0, rss3 = 0;
	long fds0, fds1, fds2 = 0, fds3 = 0;
	char *x = NULL;
	int ch;
	bool again = false;
	const char *kind;

	memset(&cfg, 0, sizeof(cfg));
	while ((ch = getopt(argc, argv, "N:fRe:x:t:")) != -1) {
		switch (ch) {
		case 'N':
			n = (size_t)atol(optarg);
			break;
		case 'f':
			cfg.fresh = true;
			break;
		case 'R':
			again = true;
			break;
		case 'e':
			cfg.pid = (pid_t)atoi(optarg);
			break;
		case 'x':
			x = optarg;
			break;
		case 't':
			cfg.target = optarg;
			break;
		default:
			usage();
		}
	}
	if (n < 100 || cfg.pid <= 0 || x == NULL || cfg.target == NULL)
		usage();
	kind = cfg.fresh ? "fresh" : "idle";
	parse_where(x, &cfg.proxy_ns, &cfg.proxy);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < n + 64) {
		fprintf(stderr,
		    "netbench: %zu tunnels need %zu fds; the limit is %llu\n",
		    n, n + 64, (unsigned long long)rl.rlim_cur);
		return 2;
	}
	fds = calloc(n, sizeof(*fds));
	open_us = calloc(n, sizeof(*open_us));
	if (fds == NULL || open_us == NULL)
		die("calloc");

	/* warm-up: the first tunnels pay for one-time allocations */
	fds0 = proc_fds(cfg.pid);
	got = tun_open_all(&cfg, fds, 20, NULL);
	tun_close_all(&cfg, fds, got, fds0);

	rss0 = settled_rss(cfg.pid);
	fds0 = proc_fds(cfg.pid);
	got = tun_open_all(&cfg, fds, n, open_us);
	rss1 = settled_rss(cfg.pid);
	fds1 = proc_fds(cfg.pid);
	fds2 = tun_close_all(&cfg, fds, got, fds0);
	if (again) {
		/* the same again: memory freed by the first close must be
		 * reused, not added to */
		rss2 = settled_rss(cfg.pid);
		got2 = tun_open_all(&cfg, fds, got, NULL);
		rss3 = settled_rss(cfg.pid);
		fds3 = tun_close_all(&cfg, fds, got2, fds0);
	}

	printf("tunnels_%s_opened %zu count\n", kind, got);
	k = got / 20 ? got / 20 : 1;
	if (got >= 2 * k) {
		/* the cost of a new tunnel with few and with many open */
		printf("tunnels_%s_open_first_us %.1f us\n", kind,
		    pct(open_us, k, 0.5));
		printf("tunnels_%s_open_last_us %.1f us\n", kind,
		    pct(open_us + got - k, k, 0.5));
	}
	printf("tunnels_%s_rss_before %lld bytes\n", kind, rss0);
	printf("tunnels_%s_rss_open %lld bytes\n", kind, rss1);
	printf("tunnels_%s_fds_per_tunnel %.2f fds\n", kind,
	    got ? (double)(fds1 - fds0) / (double)got : 0);
	printf("tunnels_%s_fds_left_after_close %ld fds\n", kind,
	    (fds2 > fds3 ? fds2 : fds3) - fds0);
	printf("rss_per_%s_tunnel_bytes %.0f bytes\n", kind,
	    got ? (double)(rss1 - rss0) / (double)got : 0);
	if (again) {
		printf("tunnels_%s_rss_closed %lld bytes\n", kind, rss2);
		printf("tunnels_%s_rss_reopened %lld bytes\n", kind, rss3);
		printf("rss_regrowth_per_%s_tunnel_bytes %.0f bytes\n", kind,
		    got2 ? (double)(rss3 - rss1) / (double)got2 : 0);
	}
	free(fds);
	free(open_us);
	return got == n && (!again || got2 == got) ? 0 : 1;
}

/* ---- sink ----------------------------------------------------------------- */

/*
 * The far end of the tunnels: accepts every connection on ADDR:PORT, echoes
 * what arrives, closes on EOF. Runs until killed.
 */
static _Noreturn void
cmd_sink(int argc, char **argv)
{
	struct epoll_event ev, evs[256];
	struct sockaddr_in sa;
	struct rlimit rl;
	char *a, *p;
	int lfd, ep, one = 1;

	if (argc != 2 || (p = strrchr(argv[1], ':')) == NULL)
		usage();
	a = argv[1];
	*p++ = '\0';
	parse_addr(a, p, &sa);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if ((lfd = socket(
	         AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) == -1)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    listen(lfd, 4096) == -1)
		die("listen");
	if ((ep = epoll_create1(EPOLL_CLOEXEC)) == -1)
		die("epoll_create1");
	ev.events = EPOLLIN;
	ev.data.fd = lfd;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev) == -1)
		die("epoll_ctl");
	for (;;) {
		int n = epoll_wait(ep, evs, 256, -1), i;

		if (n == -1 && errno != EINTR)
			die("epoll_wait");
		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd, c;
			char buf[4096];
			ssize_t r;

			if (fd == lfd) {
				while (
				    (c = accept4(lfd, NULL, NULL,
				         SOCK_CLOEXEC | SOCK_NONBLOCK)) != -1) {
					ev.events = EPOLLIN;
					ev.data.fd = c;
					if (epoll_ctl(ep, EPOLL_CTL_ADD, c,
					        &ev) == -1)
						close(c);
				}
				continue;
			}
			r = read(fd, buf, sizeof(buf));
			if (r > 0) {
				if (write(fd, buf, (size_t)r) != r)
					close(fd);
			} else if (r == 0 || errno != EAGAIN) {
				close(fd);
			}
		}
	}
}

int
main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(argv[1], "conn") == 0)
		return cmd_conn(argc - 1, argv + 1);
	if (strcmp(argv[1], "dns") == 0)
		return cmd_dns(argc - 1, argv + 1);
	if (strcmp(argv[1], "tunnels") == 0)
		return cmd_tunnels(argc - 1, argv + 1);
	if (strcmp(argv[1], "sink") == 0)
		cmd_sink(argc - 1, argv + 1);
	usage();
	return 2;
}
