/* SPDX-License-Identifier: ISC */
/*
 * Benchmark of proxy/identity: identity_lookup latency for connections made
 * from inside a network namespace while thousands of idle processes run on
 * the host outside it, against one whole-host /proc fd scan (what a naive
 * implementation pays per connection). Owns its processes and namespace and
 * removes them; leaves interpretation to tests/bench.
 *
 * Usage: identity_bench [-n HOST_PROCS] [-s SANDBOX_PROCS] [-f EXTRA_FDS]
 *                       [-c CONNECTIONS] [-r SCAN_ROUNDS]
 * Prints "key value" lines (microseconds unless the key says otherwise).
 * Needs root. Every child dies with the benchmark (PDEATHSIG, and EOF on a
 * control pipe only the benchmark holds); the namespace lives only as long
 * as its processes and our fd.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "identity.h"

#define TIMEOUT_MS 10000

/* Fixed fds in every child, after close_range(). */
#define FD_CTL         3 /* read end: EOF means exit */
#define FD_READY       4 /* write end: one byte when set up */
#define FD_CMD         5 /* read end: commands (connector, sandbox init) */
#define FD_KEEP        6 /* one more fd a child passes on (sandbox init) */
#define FD_FIRST_EXTRA 7

static int opt_host = 5000, opt_sandbox = 4, opt_fds = 3, opt_conns = 2000,
           opt_rounds = 5;
static int ctl[2] = {-1, -1}, ready[2] = {-1, -1};
static int host_ns = -1, bench_ns = -1;
static struct sockaddr_in listen_addr;

static void
die(const char *what)
{
	perror(what);
	exit(2);
}

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
pct(double *v, size_t n, double p)
{
	size_t i;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	i = (size_t)(p * (double)(n - 1) + 0.5);
	return v[i];
}

/* ------------------------------------------------------------------ */
/* Children                                                            */

/* Moves fd to target (or closes target when fd < 0), clobbering nothing. */
static void
place_fd(int fd, int target)
{
	if (fd < 0) {
		close(target);
		return;
	}
	if (dup2(fd, target) < 0)
		_exit(1);
}

/*
 * In a fresh child: dies with us, keeps only the control fds (cmd and keep
 * may be -1) at fixed numbers, and opens a few more like a real process.
 */
static void
child_setup(pid_t parent, int cmd, int keep)
{
	int t_ctl, t_ready, t_cmd = -1, t_keep = -1;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	/* Copies above every target first: no dup2() below overwrites a
	 * source still needed. */
	t_ctl = fcntl(ctl[0], F_DUPFD, 100);
	t_ready = fcntl(ready[1], F_DUPFD, 100);
	if (cmd >= 0)
		t_cmd = fcntl(cmd, F_DUPFD, 100);
	if (keep >= 0)
		t_keep = fcntl(keep, F_DUPFD, 100);
	if (t_ctl < 0 || t_ready < 0 || (cmd >= 0 && t_cmd < 0) ||
	    (keep >= 0 && t_keep < 0))
		_exit(1);
	place_fd(t_ctl, FD_CTL);
	place_fd(t_ready, FD_READY);
	place_fd(t_cmd, FD_CMD);
	place_fd(t_keep, FD_KEEP);
	if (syscall(SYS_close_range, FD_FIRST_EXTRA, ~0U, 0) != 0)
		_exit(1);
	ctl[0] = FD_CTL;
	ready[1] = FD_READY;
	for (int i = 0; i < opt_fds; i++)
		if (open("/dev/null", O_RDONLY) < 0)
			_exit(1);
}

static void
child_ready_and_hold(void)
{
	char c = 'r';

	if (write(FD_READY, &c, 1) != 1)
		_exit(1);
	while (read(FD_CTL, &c, 1) != 0 && errno == EINTR)
		;
	_exit(0);
}

static void
wait_ready(int n)
{
	char buf[512];

	while (n > 0) {
		struct pollfd p = {.fd = ready[0], .events = POLLIN};
		ssize_t r;

		if (poll(&p, 1, TIMEOUT_MS) != 1) {
			fprintf(stderr, "children not ready (%d missing)\n", n);
			exit(2);
		}
		r = read(ready[0], buf,
		    n < (int)sizeof(buf) ? (size_t)n : sizeof(buf));
		if (r <= 0)
			die("read ready");
		n -= (int)r;
	}
}

static void
spawn_idle(int n)
{
	pid_t self = getpid();

	for (int i = 0; i < n; i++) {
		pid_t p = fork();

		if (p < 0)
			die("fork");
		if (p == 0) {
			child_setup(self, -1, -1);
			child_ready_and_hold();
		}
	}
	wait_ready(n);
}

/* Connects once per command byte and waits for the server to close. */
static void
connector_loop(void)
{
	char c;

	for (;;) {
		int s;

		if (read(FD_CMD, &c, 1) != 1)
			_exit(0);
		s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0 ||
		    connect(s, (struct sockaddr *)&listen_addr,
		        sizeof(listen_addr)) != 0)
			_exit(3);
		while (read(s, &c, 1) > 0)
			;
		close(s);
	}
}

/*
 * The sandbox: an init process in the namespace with opt_sandbox idle
 * children and a connector child. Command 'f' makes the init fork a fresh
 * process for one connection (a new caller every time, like git spawning
 * git-remote-https); the connector takes 'c' on its own pipe.
 */
static void
sandbox_init(void)
{
	pid_t self = getpid();
	char c;

	for (int i = 0; i < opt_sandbox; i++) {
		pid_t p = fork();

		if (p < 0)
			_exit(4);
		if (p == 0) {
			child_setup(self, -1, -1);
			child_ready_and_hold();
		}
	}
	pid_t p = fork();
	if (p < 0)
		_exit(4);
	if (p == 0) {
		child_setup(self, FD_KEEP, -1);
		if (write(FD_READY, "c", 1) != 1)
			_exit(1);
		connector_loop();
	}
	close(FD_KEEP);
	if (write(FD_READY, "r", 1) != 1)
		_exit(1);
	for (;;) {
		if (read(FD_CMD, &c, 1) != 1)
			_exit(0);
		p = fork();
		if (p < 0)
			_exit(4);
		if (p == 0) {
			int s = socket(AF_INET, SOCK_STREAM, 0);

			if (s < 0 ||
			    connect(s, (struct sockaddr *)&listen_addr,
			        sizeof(listen_addr)) != 0)
				_exit(3);
			while (read(s, &c, 1) > 0)
				;
			_exit(0);
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
}

/* ------------------------------------------------------------------ */
/* Namespace                                                           */

static void
lo_up(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) != 0)
		die("SIOCGIFFLAGS");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0)
		die("SIOCSIFFLAGS");
	close(s);
}

/* Creates the namespace and a listener on 127.0.0.1 inside it. */
static int
make_ns_listener(void)
{
	socklen_t len = sizeof(listen_addr);
	int l;

	if (unshare(CLONE_NEWNET) != 0)
		die("unshare");
	bench_ns = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (bench_ns < 0)
		die("open ns");
	lo_up();
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&listen_addr, 0, sizeof(listen_addr));
	listen_addr.sin_family = AF_INET;
	listen_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l < 0 || bind(l, (struct sockaddr *)&listen_addr, len) != 0 ||
	    listen(l, 128) != 0 ||
	    getsockname(l, (struct sockaddr *)&listen_addr, &len) != 0)
		die("listener");
	if (setns(host_ns, CLONE_NEWNET) != 0)
		die("setns back");
	return l;
}

/* ------------------------------------------------------------------ */
/* The naive baseline: every /proc/PID/fd on the host                  */

static int
full_proc_scan(const char *want, size_t wantlen, int *nprocs)
{
	DIR *proc = opendir("/proc");
	struct dirent *d;
	int found = 0;

	*nprocs = 0;
	if (proc == NULL)
		die("opendir /proc");
	while ((d = readdir(proc)) != NULL) {
		char path[300], link[64];
		struct dirent *f;
		DIR *fds;
		int dfd;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		(*nprocs)++;
		snprintf(path, sizeof(path), "/proc/%s/fd", d->d_name);
		fds = opendir(path);
		if (fds == NULL)
			continue;
		dfd = dirfd(fds);
		while ((f = readdir(fds)) != NULL) {
			ssize_t n;

			if (f->d_name[0] == '.')
				continue;
			n = readlinkat(dfd, f->d_name, link, sizeof(link));
			if (n == (ssize_t)wantlen &&
			    memcmp(link, want, wantlen) == 0)
				found = atoi(d->d_name);
		}
		closedir(fds);
	}
	closedir(proc);
	return found;
}

/* ------------------------------------------------------------------ */

static void
usage(void)
{
	fprintf(stderr,
	    "usage: identity_bench [-n HOST_PROCS] [-s "
	    "SANDBOX_PROCS] [-f EXTRA_FDS] [-c CONNECTIONS] [-r "
	    "SCAN_ROUNDS]\n");
	exit(2);
}

struct accepted {
	int fd;
	struct sockaddr_storage peer, local;
};

static void
accept_one(int l, struct accepted *a)
{
	struct pollfd p = {.fd = l, .events = POLLIN};
	socklen_t len;

	if (poll(&p, 1, TIMEOUT_MS) != 1) {
		fprintf(stderr, "no connection\n");
		exit(2);
	}
	a->fd = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	if (a->fd < 0)
		die("accept");
	len = sizeof(a->peer);
	getpeername(a->fd, (struct sockaddr *)&a->peer, &len);
	len = sizeof(a->local);
	getsockname(a->fd, (struct sockaddr *)&a->local, &len);
}

/* Counts the fds of the processes in the namespace. */
static void
count_sandbox(int *nprocs, int *nfds)
{
	struct stat nst;
	DIR *proc = opendir("/proc");
	struct dirent *d;

	*nprocs = *nfds = 0;
	if (proc == NULL || fstat(bench_ns, &nst) != 0)
		return;
	while ((d = readdir(proc)) != NULL) {
		char path[300];
		struct stat st;
		struct dirent *f;
		DIR *fds;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/net", d->d_name);
		if (stat(path, &st) != 0 || st.st_ino != nst.st_ino ||
		    st.st_dev != nst.st_dev)
			continue;
		(*nprocs)++;
		snprintf(path, sizeof(path), "/proc/%s/fd", d->d_name);
		fds = opendir(path);
		if (fds == NULL)
			continue;
		while ((f = readdir(fds)) != NULL)
			if (f->d_name[0] != '.')
				(*nfds)++;
		closedir(fds);
	}
	closedir(proc);
}

int
main(int argc, char **argv)
{
	static struct identity id;
	struct identity_stats st;
	struct identity_ctx *ctx;
	struct accepted a;
	char err[256];
	int o, l, conn_cmd[2], init_cmd[2], nprocs, nfds;
	pid_t init_pid;
	double *lat, *fresh, *miss, scans[64];
	int nlat = 0, nfresh = 0, nmiss = 0, bad = 0;

	while ((o = getopt(argc, argv, "n:s:f:c:r:")) != -1) {
		switch (o) {
		case 'n':
			opt_host = atoi(optarg);
			break;
		case 's':
			opt_sandbox = atoi(optarg);
			break;
		case 'f':
			opt_fds = atoi(optarg);
			break;
		case 'c':
			opt_conns = atoi(optarg);
			break;
		case 'r':
			opt_rounds = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (opt_host < 0 || opt_sandbox < 0 || opt_fds < 0 || opt_conns < 10 ||
	    opt_rounds < 1 || opt_rounds > 64)
		usage();
	if (geteuid() != 0) {
		fprintf(stderr, "identity_bench: needs root\n");
		return 2;
	}
	alarm(1200);
	setvbuf(stdout, NULL, _IOLBF, 0);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	struct rlimit rl = {.rlim_cur = 65536, .rlim_max = 65536};
	setrlimit(RLIMIT_NOFILE, &rl);

	if (pipe2(ctl, O_CLOEXEC) != 0 || pipe2(ready, O_CLOEXEC) != 0)
		die("pipe");
	host_ns = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (host_ns < 0)
		die("open ns");

	/* The host's idle crowd, outside the sandbox. */
	double t = now_us();
	spawn_idle(opt_host);
	fprintf(stderr, "spawned %d host processes in %.1f s\n", opt_host,
	    (now_us() - t) / 1e6);

	/* The sandbox. */
	l = make_ns_listener();
	if (pipe2(conn_cmd, O_CLOEXEC) != 0 || pipe2(init_cmd, O_CLOEXEC) != 0)
		die("pipe");
	init_pid = fork();
	if (init_pid < 0)
		die("fork");
	if (init_pid == 0) {
		pid_t parent = getppid();

		if (setns(bench_ns, CLONE_NEWNET) != 0)
			_exit(1);
		child_setup(parent, init_cmd[0], conn_cmd[0]);
		sandbox_init();
	}
	close(conn_cmd[0]);
	close(init_cmd[0]);
	wait_ready(opt_sandbox + 2);
	count_sandbox(&nprocs, &nfds);

	t = now_us();
	ctx = identity_new(bench_ns, err, sizeof(err));
	if (ctx == NULL) {
		fprintf(stderr, "identity_new: %s\n", err);
		return 2;
	}
	double new_us = now_us() - t;
	lat = calloc((size_t)opt_conns, sizeof(double));
	fresh = calloc((size_t)opt_conns, sizeof(double));
	miss = calloc((size_t)opt_conns, sizeof(double));
	if (lat == NULL || fresh == NULL || miss == NULL)
		die("calloc");

	/* Steady state: one long-lived caller, many connections. */
	for (int i = 0; i < opt_conns + 20; i++) {
		enum identity_err r;
		double t0, t1;

		if (write(conn_cmd[1], "c", 1) != 1)
			die("write cmd");
		accept_one(l, &a);
		t0 = now_us();
		r = identity_lookup(ctx, (struct sockaddr *)&a.peer,
		    (struct sockaddr *)&a.local, &id);
		t1 = now_us();
		if (r != IDENTITY_OK) {
			if (bad++ < 5)
				fprintf(stderr, "lookup: %s (pid %d)\n",
				    identity_err_code(r), (int)id.err_pid);
		} else if (i >= 20) {
			lat[nlat++] = t1 - t0;
		}
		/* The cost of the sock_diag round trip alone: a tuple that
		 * does not exist (the peer port changed). */
		struct sockaddr_in bogus = *(struct sockaddr_in *)&a.peer;
		bogus.sin_port = htons(1);
		t0 = now_us();
		r = identity_lookup(ctx, (struct sockaddr *)&bogus,
		    (struct sockaddr *)&a.local, &id);
		t1 = now_us();
		if (r == IDENTITY_ERR_NO_SOCKET && i >= 20)
			miss[nmiss++] = t1 - t0;
		close(a.fd);
	}

	/* A new caller process for every connection. */
	for (int i = 0; i < opt_conns / 4 + 10; i++) {
		enum identity_err r;
		double t0, t1;

		if (write(init_cmd[1], "f", 1) != 1)
			die("write cmd");
		accept_one(l, &a);
		t0 = now_us();
		r = identity_lookup(ctx, (struct sockaddr *)&a.peer,
		    (struct sockaddr *)&a.local, &id);
		t1 = now_us();
		if (r != IDENTITY_OK) {
			if (bad++ < 10)
				fprintf(stderr, "fresh lookup: %s (pid %d)\n",
				    identity_err_code(r), (int)id.err_pid);
		} else if (i >= 10) {
			fresh[nfresh++] = t1 - t0;
		}
		close(a.fd);
	}

	/* The baseline, on a connection held open. */
	if (write(conn_cmd[1], "c", 1) != 1)
		die("write cmd");
	accept_one(l, &a);
	if (identity_lookup(ctx, (struct sockaddr *)&a.peer,
	        (struct sockaddr *)&a.local, &id) != IDENTITY_OK)
		bad++;
	char want[48];
	size_t wantlen = (size_t)snprintf(want, sizeof(want), "socket:[%llu]",
	    (unsigned long long)id.sock_ino);
	int found = 0, scanned = 0;
	for (int i = 0; i < opt_rounds; i++) {
		double t0 = now_us();

		found = full_proc_scan(want, wantlen, &scanned);
		scans[i] = now_us() - t0;
	}
	if (found != id.pid) {
		fprintf(stderr, "baseline found pid %d, identity %d\n", found,
		    (int)id.pid);
		bad++;
	}
	close(a.fd);
	identity_stats_get(ctx, &st);

	printf("processes %d\n", scanned);
	printf("host_idle_processes %d\n", opt_host);
	printf("sandbox_processes %d\n", nprocs);
	printf("sandbox_fds %d\n", nfds);
	printf("connections %d\n", nlat);
	printf("identity_lookup_us_median %.1f\n", pct(lat, (size_t)nlat, 0.5));
	printf("identity_lookup_us_p99 %.1f\n", pct(lat, (size_t)nlat, 0.99));
	printf("identity_lookup_new_process_us_median %.1f\n",
	    pct(fresh, (size_t)nfresh, 0.5));
	printf("identity_lookup_new_process_us_p99 %.1f\n",
	    pct(fresh, (size_t)nfresh, 0.99));
	printf(
	    "sock_diag_miss_us_median %.1f\n", pct(miss, (size_t)nmiss, 0.5));
	printf("full_proc_scan_us_median %.1f\n",
	    pct(scans, (size_t)opt_rounds, 0.5));
	printf("identity_new_ms %.1f\n", new_us / 1e3);
	printf("lookup_errors %d\n", bad);
	printf("stats_fast_hits %llu\n", (unsigned long long)st.fast_hits);
	printf("stats_mru_hits %llu\n", (unsigned long long)st.mru_hits);
	printf("stats_refreshes %llu\n", (unsigned long long)st.refreshes);
	printf("stats_full_refreshes %llu\n",
	    (unsigned long long)st.full_refreshes);
	printf("stats_full_scans %llu\n", (unsigned long long)st.full_scans);
	printf("stats_candidates %llu\n", (unsigned long long)st.candidates);
	printf("stats_proc_seek %llu\n", (unsigned long long)st.proc_seek);

	/* Teardown: EOF on ctl and the command pipes ends every child;
	 * SIGKILL the rest; reap everything (we are a subreaper). */
	identity_free(ctx);
	close(conn_cmd[1]);
	close(init_cmd[1]);
	close(ctl[1]);
	close(l);
	kill(init_pid, SIGKILL);
	t = now_us();
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	fprintf(stderr, "reaped in %.1f s\n", (now_us() - t) / 1e6);
	close(bench_ns);
	close(host_ns);
	free(lat);
	free(fresh);
	free(miss);
	return bad ? 1 : 0;
}
