/* SPDX-License-Identifier: ISC */
/*
 * Tests of proxy/identity: the pure /proc parsers table-driven, then real
 * connections made by real processes (forked, exec'd through symlinks,
 * copies, deleted files, other uids, other namespaces) looked up through the
 * module. Needs root; every process started here is killed and reaped, and
 * the network namespace exists only as long as this process holds its fd.
 *
 * The test binary doubles as the "known binary" the children exec:
 * `test_identity --hold READY_FD CTL_FD ...` reports itself ready and holds
 * its inherited fds until CTL_FD reaches EOF, which happens at the latest
 * when the test process dies.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "identity.h"
#include "tap.h"

/* Far above anything the test opens (the contexts keep fds open). */
#define READY_FD   900
#define CTL_FD     901
#define TIMEOUT_MS 10000

static char self_exe[PATH_MAX]; /* realpath of this binary */
static char tmpdir[PATH_MAX];
static char copy_exe[PATH_MAX]; /* a copy of this binary: another exe */
static int host_ns = -1, test_ns = -1;
static pid_t test_pid;

/* ------------------------------------------------------------------ */
/* Hold mode: what the exec'd children run                             */

struct msg {
	char tag[4];
	int32_t pid;
};

static void
send_msg(int fd, const char *tag, pid_t pid)
{
	struct msg m;

	memset(&m, 0, sizeof(m));
	memcpy(m.tag, tag, strnlen(tag, 3));
	m.pid = pid;
	if (write(fd, &m, sizeof(m)) != (ssize_t)sizeof(m))
		_exit(90);
}

static void
hold_forever(int ctl)
{
	char c;

	while (read(ctl, &c, 1) != 0 && errno == EINTR)
		;
	_exit(0);
}

static int
hold_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	send_msg(READY_FD, "R", getpid());
	hold_forever(CTL_FD);
	return 0;
}

/*
 * A known limitation, reported as a TAP TODO: prove shows it, it does not
 * fail the run (tap.h would count it as a failure).
 */
static void
tap_todo(bool cond, const char *what, const char *why)
{
	printf("%s %d - %s # TODO %s\n", cond ? "ok" : "not ok", ++tap_n, what,
	    why);
}

/* ------------------------------------------------------------------ */
/* Process bookkeeping                                                 */

/*
 * One scenario's processes. ready: the children write struct msg; ctl: the
 * children block reading it and exit at EOF (we close our write end).
 */
struct kids {
	int ready[2], ctl[2];
	pid_t pids[16];
	int npids;
};

static void
kids_init(struct kids *k)
{
	memset(k, 0, sizeof(*k));
	if (pipe2(k->ready, O_CLOEXEC) != 0 || pipe2(k->ctl, O_CLOEXEC) != 0) {
		perror("pipe2");
		exit(2);
	}
}

static void
kids_note(struct kids *k, pid_t pid)
{
	if (k->npids < 16)
		k->pids[k->npids++] = pid;
}

/* Waits for one message; returns its pid, or -1 on timeout. */
static pid_t
kids_wait(struct kids *k, const char *tag)
{
	struct pollfd p = {.fd = k->ready[0], .events = POLLIN};
	struct msg m;

	if (poll(&p, 1, TIMEOUT_MS) != 1 ||
	    read(k->ready[0], &m, sizeof(m)) != (ssize_t)sizeof(m)) {
		tap_diag("no '%s' message from the child", tag);
		return -1;
	}
	if (strncmp(m.tag, tag, 4) != 0) {
		tap_diag("got '%.4s', want '%s'", m.tag, tag);
		return -1;
	}
	kids_note(k, m.pid);
	return m.pid;
}

/* Kills and reaps everything of the scenario (we are a subreaper). */
static void
kids_done(struct kids *k)
{
	if (k->ctl[1] >= 0)
		close(k->ctl[1]);
	for (int i = 0; i < k->npids; i++)
		if (k->pids[i] > 0)
			kill(k->pids[i], SIGKILL);
	for (;;) {
		pid_t r = waitpid(-1, NULL, 0);

		if (r < 0 && errno == ECHILD)
			break;
	}
	close(k->ctl[0]);
	close(k->ready[0]);
	close(k->ready[1]);
	k->ctl[0] = k->ctl[1] = k->ready[0] = k->ready[1] = -1;
}

/* In a child: die with the test, and the test's fds not needed stay. */
static pid_t
kid_fork(struct kids *k)
{
	pid_t parent = getpid(), pid = fork();

	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(91);
		/* Only the test holds the write end: its exit (or
		 * kids_done) is EOF for every holder, forked ones too. */
		close(k->ctl[1]);
		k->ctl[1] = -1;
		return 0;
	}
	kids_note(k, pid);
	return pid;
}

/* In a child: exec path with argv, the pipes at READY_FD and CTL_FD. */
static void
kid_exec_argv(struct kids *k, const char *path, char *const *argv)
{
	/* Neither source may be a target of the other dup2(). */
	if (k->ready[1] >= READY_FD || k->ctl[0] >= READY_FD ||
	    dup2(k->ready[1], READY_FD) < 0 || dup2(k->ctl[0], CTL_FD) < 0)
		_exit(92);
	execv(path, argv);
	_exit(93);
}

/* In a child: exec path (argv0 as given) in hold mode. */
static void
kid_exec_hold(
    struct kids *k, const char *path, const char *argv0, char *const *extra)
{
	char *argv[16];
	int n = 0;

	/* Copies: execv() wants char *, and we are about to exec. */
	argv[n++] = strdup(argv0);
	argv[n++] = strdup("--hold");
	for (int i = 0; extra && extra[i] && n < 15; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	kid_exec_argv(k, path, argv);
}

static void
enter_ns(int ns)
{
	if (ns >= 0 && setns(ns, CLONE_NEWNET) != 0)
		_exit(94);
}

/* In a child: a socket (without CLOEXEC: exec'd children keep it). */
static int
kid_connect(int family, const struct sockaddr *dst, socklen_t len)
{
	int s = socket(family, SOCK_STREAM, 0);

	if (s < 0 || s >= READY_FD || connect(s, dst, len) != 0)
		_exit(95);
	return s;
}

/* ------------------------------------------------------------------ */
/* Listeners                                                           */

struct listener {
	int fd;
	struct sockaddr_storage addr;
	socklen_t len;
};

/* Creates a listener inside ns (the socket keeps its namespace). */
static bool
listen_in(int ns, int family, const char *ip, bool v6only, struct listener *l)
{
	int one = 1, v6o = v6only ? 1 : 0;
	bool ok = false;

	memset(l, 0, sizeof(*l));
	l->fd = -1;
	if (ns >= 0 && setns(ns, CLONE_NEWNET) != 0)
		return false;
	l->fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l->fd < 0)
		goto out;
	setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (family == AF_INET6)
		setsockopt(l->fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6o, sizeof(v6o));
	if (family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&l->addr;

		a->sin_family = AF_INET;
		inet_pton(AF_INET, ip, &a->sin_addr);
		l->len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&l->addr;

		a->sin6_family = AF_INET6;
		inet_pton(AF_INET6, ip, &a->sin6_addr);
		l->len = sizeof(*a);
	}
	if (bind(l->fd, (struct sockaddr *)&l->addr, l->len) != 0 ||
	    listen(l->fd, 64) != 0 ||
	    getsockname(l->fd, (struct sockaddr *)&l->addr, &l->len) != 0)
		goto out;
	ok = true;
out:
	if (ns >= 0 && setns(host_ns, CLONE_NEWNET) != 0) {
		perror("setns back");
		exit(2);
	}
	if (!ok && l->fd >= 0) {
		close(l->fd);
		l->fd = -1;
	}
	return ok;
}

/* The accepted connection's two ends, as egressd would see them. */
struct conn {
	int fd;
	struct sockaddr_storage peer, local;
};

static bool
accept_conn(struct listener *l, struct conn *c)
{
	struct pollfd p = {.fd = l->fd, .events = POLLIN};
	socklen_t len;

	c->fd = -1;
	if (poll(&p, 1, TIMEOUT_MS) != 1)
		return false;
	c->fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
	if (c->fd < 0)
		return false;
	len = sizeof(c->peer);
	getpeername(c->fd, (struct sockaddr *)&c->peer, &len);
	len = sizeof(c->local);
	getsockname(c->fd, (struct sockaddr *)&c->local, &len);
	return true;
}

static enum identity_err
lookup(struct identity_ctx *ctx, const struct conn *c, struct identity *id)
{
	return identity_lookup(ctx, (const struct sockaddr *)&c->peer,
	    (const struct sockaddr *)&c->local, id);
}

/* ------------------------------------------------------------------ */
/* Setup                                                               */

static bool
copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;
	bool ok = true;

	if (in < 0)
		return false;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out < 0) {
		close(in);
		return false;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			ok = false;
	close(in);
	close(out);
	return ok && n == 0;
}

static void
lo_up(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) != 0) {
		perror("SIOCGIFFLAGS");
		exit(2);
	}
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0) {
		perror("SIOCSIFFLAGS");
		exit(2);
	}
	close(s);
}

/* A new network namespace, alive as long as the returned fd. */
static int
make_netns(void)
{
	int fd;

	if (unshare(CLONE_NEWNET) != 0) {
		/* Root without CAP_SYS_ADMIN (a restricted container). */
		if (errno == EPERM) {
			printf("1..0 # SKIP cannot create a network "
			       "namespace\n");
			exit(0);
		}
		perror("unshare(CLONE_NEWNET)");
		exit(2);
	}
	fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	lo_up();
	if (fd < 0 || setns(host_ns, CLONE_NEWNET) != 0) {
		perror("netns");
		exit(2);
	}
	return fd;
}

static void
cleanup_tmp(void)
{
	char cmd[PATH_MAX + 32];

	if (getpid() != test_pid || tmpdir[0] == '\0')
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", tmpdir);
}

static void
tmp_path(char *out, const char *name)
{
	if ((size_t)snprintf(out, PATH_MAX, "%s/%s", tmpdir, name) >=
	    PATH_MAX) {
		fprintf(stderr, "path too long\n");
		exit(2);
	}
}

/* Start time of pid from /proc/PID/stat, parsed the dumb way. */
static unsigned long long
start_time_of(pid_t pid)
{
	char p[64], buf[1024], *rp;
	unsigned long long v = 0;
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	f = fopen(p, "re");
	if (f == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	if (rp == NULL)
		return 0;
	/* 20 fields after ") ": state is field 3, start time field 22. */
	rp += 2;
	for (int field = 3; field < 22 && rp; field++) {
		rp = strchr(rp, ' ');
		if (rp)
			rp++;
	}
	if (rp)
		v = strtoull(rp, NULL, 10);
	return v;
}

/* ------------------------------------------------------------------ */
/* Pure parser tables                                                  */

struct stat_case {
	const char *name, *in;
	bool ok;
	pid_t ppid;
	uint64_t start;
};

#define STAT_TAIL \
	" 0 0 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 12345 67 " \
	"18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"

static const struct stat_case stat_cases[] = {
    {"plain", "1234 (bash) S 1200" STAT_TAIL, true, 1200, 987654},
    {"comm with paren and spaces", "1234 (a) b (c) S 42" STAT_TAIL, true, 42,
        987654},
    {"comm that looks like fields", "1 () 1 2 3 4 5) R 7" STAT_TAIL, true, 7,
        987654},
    {"comm with newline", "9 (x\ny) S 8" STAT_TAIL, true, 8, 987654},
    {"ppid zero", "1 (init) S 0" STAT_TAIL, true, 0, 987654},
    {"negative tpgid ok",
        "5 (t) S 4 5 5 0 -1 4194560 1 0 0 0 1 2 0 0 20 0 1 "
        "0 77 1 2\n",
        true, 4, 77},
    {"no paren", "1234 bash S 1200" STAT_TAIL, false, 0, 0},
    {"truncated before start", "1234 (bash) S 1200 1 1 0 -1 4194560 1 0", false,
        0, 0},
    {"empty", "", false, 0, 0},
    {"only comm", "1 (x)", false, 0, 0},
    {"two-char state", "1 (x) SS 1" STAT_TAIL, false, 0, 0},
    {"ppid not a number", "1 (x) S a" STAT_TAIL, false, 0, 0},
    {"ppid negative", "1 (x) S -2" STAT_TAIL, false, 0, 0},
    {"ppid overflow", "1 (x) S 99999999999" STAT_TAIL, false, 0, 0},
    {"start overflow",
        "1 (x) S 2 0 0 0 -1 1 1 0 0 0 1 2 0 0 20 0 1 0 "
        "999999999999999999999 1\n",
        false, 0, 0},
    {"double space", "1 (x) S 2  0" STAT_TAIL, false, 0, 0},
};

static void
test_parse_stat(void)
{
	struct tap_guard g = {0};

	for (size_t i = 0; i < sizeof(stat_cases) / sizeof(stat_cases[0]);
	     i++) {
		const struct stat_case *c = &stat_cases[i];
		size_t len = strlen(c->in);
		const char *in = (const char *)tap_guard_copy(&g, c->in, len);
		pid_t ppid = -5;
		uint64_t st = 0;
		bool ok = identity_parse_stat(in, len, &ppid, &st);

		tap_ok(ok == c->ok, "parse_stat %s: %s", c->name,
		    c->ok ? "accepted" : "rejected");
		if (ok && c->ok) {
			tap_is_int(
			    ppid, c->ppid, "parse_stat %s: ppid", c->name);
			tap_is_int(
			    st, c->start, "parse_stat %s: start", c->name);
		}
		/* Every prefix is either rejected or (when it ends inside
		 * the last number) a different value, never a crash. */
		for (size_t cut = 0; cut < len; cut++) {
			in = (const char *)tap_guard_copy(&g, c->in, cut);
			(void)identity_parse_stat(in, cut, &ppid, &st);
		}
	}
	tap_guard_free(&g);
}

struct status_case {
	const char *name, *in;
	bool ok;
	uid_t uid, euid;
	gid_t gid, egid;
};

static const struct status_case status_cases[] = {
    {"real",
        "Name:\tcat\nUmask:\t0022\nState:\tR (running)\nTgid:\t5\n"
        "Uid:\t1000\t1001\t1002\t1003\nGid:\t100\t101\t102\t103\n"
        "FDSize:\t64\n",
        true, 1000, 1001, 100, 101},
    {"no trailing newline", "Uid:\t0\t0\t0\t0\nGid:\t5\t6\t0\t0", true, 0, 0, 5,
        6},
    {"nobody",
        "Gid:\t65534\t65534\t65534\t65534\nUid:\t65534\t65534\t65534"
        "\t65534\n",
        true, 65534, 65534, 65534, 65534},
    {"max uid", "Uid:\t4294967294\t4294967295\t0\t0\nGid:\t0\t0\t0\t0\n", true,
        4294967294u, 4294967295u, 0, 0},
    {"missing gid", "Uid:\t0\t0\t0\t0\n", false, 0, 0, 0, 0},
    {"missing uid", "Gid:\t0\t0\t0\t0\n", false, 0, 0, 0, 0},
    {"duplicate uid", "Uid:\t0\t0\t0\t0\nUid:\t1\t1\t1\t1\nGid:\t0\t0\t0\t0\n",
        false, 0, 0, 0, 0},
    {"one value", "Uid:\t0\nGid:\t0\t0\t0\t0\n", false, 0, 0, 0, 0},
    {"overflow", "Uid:\t4294967296\t0\t0\t0\nGid:\t0\t0\t0\t0\n", false, 0, 0,
        0, 0},
    {"not a number", "Uid:\tx\t0\t0\t0\nGid:\t0\t0\t0\t0\n", false, 0, 0, 0, 0},
    {"key mid-line ignored", "XUid:\t7\t7\nUid:\t1\t2\t0\t0\nGid:\t3\t4\n",
        true, 1, 2, 3, 4},
    {"empty", "", false, 0, 0, 0, 0},
};

static void
test_parse_status(void)
{
	struct tap_guard g = {0};

	for (size_t i = 0; i < sizeof(status_cases) / sizeof(status_cases[0]);
	     i++) {
		const struct status_case *c = &status_cases[i];
		size_t len = strlen(c->in);
		const char *in = (const char *)tap_guard_copy(&g, c->in, len);
		uid_t u = 9, eu = 9;
		gid_t gg = 9, eg = 9;
		bool ok = identity_parse_status(in, len, &u, &eu, &gg, &eg);

		tap_ok(ok == c->ok, "parse_status %s: %s", c->name,
		    c->ok ? "accepted" : "rejected");
		if (ok && c->ok)
			tap_ok(u == c->uid && eu == c->euid && gg == c->gid &&
			        eg == c->egid,
			    "parse_status %s: ids %u %u %u %u", c->name,
			    (unsigned)u, (unsigned)eu, (unsigned)gg,
			    (unsigned)eg);
		for (size_t cut = 0; cut < len; cut++) {
			in = (const char *)tap_guard_copy(&g, c->in, cut);
			(void)identity_parse_status(in, cut, &u, &eu, &gg, &eg);
		}
	}
	tap_guard_free(&g);
}

struct cmd_case {
	const char *name;
	const char *raw;
	size_t len;
	size_t outlen;
	const char *want;
	bool complete;
};

static const struct cmd_case cmd_cases[] = {
    {"one arg", "/bin/ls\0", 8, 64, "/bin/ls", true},
    {"three args", "ls\0-l\0/tmp\0", 11, 64, "ls -l /tmp", true},
    {"no terminator", "ls\0-l", 5, 64, "ls -l", true},
    {"empty arg", "a\0\0b\0", 5, 64, "a  b", true},
    {"trailing empty arg", "a\0\0", 3, 64, "a ", true},
    {"empty", "", 0, 64, "", true},
    {"backslash", "a\\b\0", 4, 64, "a\\\\b", true},
    {"control chars", "a\nb\tc\x1b\0", 7, 64, "a\\x0ab\\x09c\\x1b", true},
    {"high bytes", "\xc3\xa9\xff\0", 4, 64, "\\xc3\\xa9\\xff", true},
    {"del", "\x7f\0", 2, 64, "\\x7f", true},
    {"fits exactly", "abc\0", 4, 4, "abc", true},
    {"cut plain", "abcd\0", 5, 4, "abc", false},
    {"cut inside escape", "ab\x01\0", 4, 5, "ab", false},
    {"escape fits exactly", "ab\x01\0", 4, 7, "ab\\x01", true},
    {"outlen one", "abc\0", 4, 1, "", false},
};

static void
test_format_cmdline(void)
{
	struct tap_guard g = {0};
	char out[64];

	for (size_t i = 0; i < sizeof(cmd_cases) / sizeof(cmd_cases[0]); i++) {
		const struct cmd_case *c = &cmd_cases[i];
		const char *in =
		    (const char *)tap_guard_copy(&g, c->raw, c->len);
		bool ok;

		memset(out, 'Z', sizeof(out));
		ok = identity_format_cmdline(in, c->len, out, c->outlen);
		tap_is_str(out, c->want, "format_cmdline %s", c->name);
		tap_ok(ok == c->complete, "format_cmdline %s: %s", c->name,
		    c->complete ? "complete" : "cut");
		tap_ok(out[c->outlen - 1] == '\0' || strlen(out) < c->outlen,
		    "format_cmdline %s: within outlen", c->name);
	}
	tap_guard_free(&g);
}

static void
test_err_names(void)
{
	for (int e = 0; e < IDENTITY_ERR__COUNT; e++) {
		const char *c = identity_err_code((enum identity_err)e);

		tap_ok(strncmp(c, "identity_", 9) == 0 && strlen(c) > 9,
		    "err %d has a code: %s", e, c);
		tap_ok(strlen(identity_strerror((enum identity_err)e)) > 10,
		    "err %s has a message", c);
		for (int f = 0; f < e; f++)
			if (strcmp(c,
			        identity_err_code((enum identity_err)f)) == 0)
				tap_ok(false, "codes %d and %d collide", e, f);
	}
	tap_is_str(identity_err_code(IDENTITY_ERR_NO_SOCKET),
	    "identity_no_socket", "stable name: no_socket");
	tap_is_str(identity_err_code(IDENTITY_ERR_AMBIGUOUS),
	    "identity_ambiguous", "stable name: ambiguous");
	tap_is_str(identity_err_code(IDENTITY_ERR__COUNT), "identity_unknown",
	    "out of range code");
	tap_ok(identity_strerror((enum identity_err) - 1) != NULL,
	    "out of range message");
}

/* ------------------------------------------------------------------ */
/* Scenarios                                                           */

struct env {
	struct identity_ctx *ns; /* watching test_ns */
	struct identity_ctx *host;
	struct listener l4; /* 127.0.0.1 in test_ns */
};

/* A child in ns that connects to l and holds (no exec). */
static bool
simple_conn(struct kids *k, int ns, struct listener *l, int sock_family,
    struct conn *c, pid_t *kid)
{
	*kid = kid_fork(k);
	if (*kid == 0) {
		enter_ns(ns);
		kid_connect(sock_family, (struct sockaddr *)&l->addr, l->len);
		send_msg(k->ready[1], "R", getpid());
		hold_forever(k->ctl[0]);
	}
	return accept_conn(l, c) && kids_wait(k, "R") == *kid;
}

static void
check_self(const struct identity *id, pid_t kid, const char *what)
{
	tap_is_int(id->pid, kid, "%s: pid", what);
	tap_is_str(id->exe, self_exe, "%s: exe is this binary", what);
	tap_ok(!id->deleted, "%s: not deleted", what);
	tap_is_int(id->uid, 0, "%s: uid", what);
	tap_is_int(id->sock_uid, 0, "%s: socket uid", what);
	tap_is_int(id->nholders, 1, "%s: one holder", what);
	tap_ok(id->sock_ino != 0, "%s: inode", what);
}

static void
test_basic_v4(struct env *e)
{
	struct kids k;
	struct conn c;
	struct identity id;
	struct stat st;
	pid_t kid;
	enum identity_err r;

	kids_init(&k);
	if (!tap_ok(simple_conn(&k, test_ns, &e->l4, AF_INET, &c, &kid),
	        "v4: child connected")) {
		kids_done(&k);
		return;
	}
	r = lookup(e->ns, &c, &id);
	tap_is_str(identity_err_code(r), "identity_ok", "v4: lookup");
	check_self(&id, kid, "v4");
	tap_is_int(id.ppid, test_pid, "v4: ppid is the test");
	tap_is_int(id.start_time, start_time_of(kid), "v4: start time");
	tap_is_int(id.nancestors, 0,
	    "v4: the test (outside the netns) is not an ancestor");
	tap_ok(stat(self_exe, &st) == 0 && id.exe_file.dev == st.st_dev &&
	        id.exe_file.ino == st.st_ino &&
	        id.exe_file.size == st.st_size &&
	        id.exe_file.nlink == st.st_nlink &&
	        id.exe_file.mtime.tv_sec == st.st_mtim.tv_sec,
	    "v4: exe_file is stat of the binary");
	tap_is_str(id.invoked_as, "", "v4: no invoked_as (not exec'd)");
	tap_ok(id.cmdline[0] != '\0', "v4: cmdline: %s", id.cmdline);
	tap_is_int(id.nlisted, 1, "v4: one executable listed");
	tap_is_str(identity_holder_exe(&id, 0), self_exe, "v4: holder exe");

	/* Twice more: the reporting holder is now a recent caller. */
	struct identity_stats s0, s1;
	identity_stats_get(e->ns, &s0);
	r = lookup(e->ns, &c, &id);
	tap_is_str(identity_err_code(r), "identity_ok", "v4: second lookup");
	tap_is_int(id.pid, kid, "v4: second lookup pid");
	identity_stats_get(e->ns, &s1);
	tap_is_int(s1.mru_hits - s0.mru_hits, 1, "v4: second lookup: mru hit");
	tap_is_int(s1.fast_hits - s0.fast_hits, 1, "v4: second lookup: fast");
	tap_is_int(s1.full_scans - s0.full_scans, 0, "v4: no host scan");

	/* The same connection, seen from egressd's own namespace: absent. */
	r = lookup(e->host, &c, &id);
	tap_is_str(identity_err_code(r), "identity_no_socket",
	    "v4: wrong namespace: no socket");
	close(c.fd);
	kids_done(&k);
}

/*
 * Two processes holding many sockets each, every socket looked up in
 * orders unlike the one they were opened in: the lookup tries the fd next
 * to the last one found in a process first, then reads its fds from the
 * highest down; every socket must be found in its own process, never in
 * the other one.
 */
#define MANY_SOCKS 24 /* per process */

static void
test_many_fds(struct env *e)
{
	static struct conn c[2 * MANY_SOCKS];
	pid_t owner[2 * MANY_SOCKS], kid[2];
	struct kids k;
	struct identity id;
	int ok = 0, n = 0;

	kids_init(&k);
	for (int p = 0; p < 2; p++) {
		kid[p] = kid_fork(&k);
		if (kid[p] == 0) {
			enter_ns(test_ns);
			for (int i = 0; i < MANY_SOCKS; i++)
				kid_connect(AF_INET,
				    (struct sockaddr *)&e->l4.addr, e->l4.len);
			send_msg(k.ready[1], "R", getpid());
			hold_forever(k.ctl[0]);
		}
		for (int i = 0; i < MANY_SOCKS && accept_conn(&e->l4, &c[n]);
		     i++)
			owner[n++] = kid[p];
		if (kids_wait(&k, "R") != kid[p])
			n = -1;
	}
	if (!tap_ok(n == 2 * MANY_SOCKS,
	        "many fds: two children hold %d connections each",
	        MANY_SOCKS)) {
		kids_done(&k);
		return;
	}
	/* newest first, oldest first, then strided across both processes */
	for (int pass = 0; pass < 3; pass++)
		for (int j = 0; j < n; j++) {
			int i = pass == 0 ? n - 1 - j :
			    pass == 1     ? j :
			                    (j * 7) % n;

			if (lookup(e->ns, &c[i], &id) == IDENTITY_OK &&
			    id.pid == owner[i] && id.nholders == 1)
				ok++;
		}
	tap_is_int(ok, 3 * n,
	    "many fds: every socket found in its own process, in any order");
	for (int i = 0; i < n; i++)
		close(c[i].fd);
	kids_done(&k);
}

static void
test_v6_and_mapped(struct env *e)
{
	struct listener l6, ldual;
	struct kids k;
	struct conn c;
	struct identity id;
	pid_t kid;
	enum identity_err r;

	if (!listen_in(test_ns, AF_INET6, "::1", true, &l6)) {
		tap_diag("no ::1 in the test namespace: skipping IPv6");
	} else {
		kids_init(&k);
		if (tap_ok(simple_conn(&k, test_ns, &l6, AF_INET6, &c, &kid),
		        "v6: child connected")) {
			r = lookup(e->ns, &c, &id);
			tap_is_str(
			    identity_err_code(r), "identity_ok", "v6: lookup");
			check_self(&id, kid, "v6");
			close(c.fd);
		}
		kids_done(&k);
		close(l6.fd);
	}

	/* v4 client, dual-stack listener: peer is ::ffff:127.0.0.1. */
	if (!tap_ok(listen_in(test_ns, AF_INET6, "::", false, &ldual),
	        "dual-stack listener")) {
		return;
	}
	struct listener via4 = ldual;
	struct sockaddr_in *a4 = (struct sockaddr_in *)&via4.addr;
	uint16_t port = ((struct sockaddr_in6 *)&ldual.addr)->sin6_port;
	memset(&via4.addr, 0, sizeof(via4.addr));
	a4->sin_family = AF_INET;
	a4->sin_port = port;
	inet_pton(AF_INET, "127.0.0.1", &a4->sin_addr);
	via4.len = sizeof(*a4);
	kids_init(&k);
	kid = kid_fork(&k);
	if (kid == 0) {
		enter_ns(test_ns);
		kid_connect(AF_INET, (struct sockaddr *)&via4.addr, via4.len);
		send_msg(k.ready[1], "R", getpid());
		hold_forever(k.ctl[0]);
	}
	if (tap_ok(accept_conn(&ldual, &c) && kids_wait(&k, "R") == kid,
	        "mapped: child connected")) {
		tap_ok(c.peer.ss_family == AF_INET6 &&
		        IN6_IS_ADDR_V4MAPPED(
		            &((struct sockaddr_in6 *)&c.peer)->sin6_addr),
		    "mapped: peer is v4-mapped");
		r = lookup(e->ns, &c, &id);
		tap_is_str(
		    identity_err_code(r), "identity_ok", "mapped: lookup");
		check_self(&id, kid, "mapped");
		close(c.fd);
	}
	kids_done(&k);
	close(ldual.fd);

	/* An AF_INET6 client socket connected to ::ffff:127.0.0.1 of an
	 * IPv4 listener: egressd sees IPv4, the socket is IPv6. */
	struct sockaddr_in6 m6;
	memset(&m6, 0, sizeof(m6));
	m6.sin6_family = AF_INET6;
	m6.sin6_port = ((struct sockaddr_in *)&e->l4.addr)->sin_port;
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &m6.sin6_addr);
	kids_init(&k);
	kid = kid_fork(&k);
	if (kid == 0) {
		enter_ns(test_ns);
		kid_connect(AF_INET6, (struct sockaddr *)&m6, sizeof(m6));
		send_msg(k.ready[1], "R", getpid());
		hold_forever(k.ctl[0]);
	}
	if (tap_ok(accept_conn(&e->l4, &c) && kids_wait(&k, "R") == kid,
	        "v6 socket to v4: connected")) {
		tap_is_int(c.peer.ss_family, AF_INET, "v6 socket to v4: peer");
		r = lookup(e->ns, &c, &id);
		tap_is_str(identity_err_code(r), "identity_ok",
		    "v6 socket to v4: lookup");
		check_self(&id, kid, "v6 socket to v4");
		close(c.fd);
	}
	kids_done(&k);
}

/* A child in ns connects, then execs path as argv0 (socket inherited). */
static bool
exec_conn(struct kids *k, struct listener *l, const char *path,
    const char *argv0, const char *cwd, char *const *extra, struct conn *c,
    pid_t *kid)
{
	*kid = kid_fork(k);
	if (*kid == 0) {
		enter_ns(test_ns);
		kid_connect(AF_INET, (struct sockaddr *)&l->addr, l->len);
		if (cwd && chdir(cwd) != 0)
			_exit(96);
		kid_exec_hold(k, path, argv0, extra);
	}
	return accept_conn(l, c) && kids_wait(k, "R") == *kid;
}

static bool
link_or_copy_hard(const char *to)
{
	return link(copy_exe, to) == 0;
}

static void
test_exec_paths(struct env *e)
{
	char link[PATH_MAX], want[PATH_MAX];
	struct kids k;
	struct conn c;
	struct identity id;
	pid_t kid;
	enum identity_err r;

	tmp_path(link, "git-remote-https");
	if (!tap_ok(symlink(self_exe, link) == 0, "symlink created"))
		return;

	/* Exec'd through a symlink: exe is the target, invoked_as the link. */
	kids_init(&k);
	if (tap_ok(exec_conn(&k, &e->l4, link, link, NULL, NULL, &c, &kid),
	        "symlink: connected")) {
		r = lookup(e->ns, &c, &id);
		tap_is_str(
		    identity_err_code(r), "identity_ok", "symlink: lookup");
		tap_is_int(id.pid, kid, "symlink: pid");
		tap_is_str(id.exe, self_exe, "symlink: exe is the real path");
		tap_is_str(id.invoked_as, link, "symlink: invoked_as the link");
		tap_ok(!id.argv0_mismatch, "symlink: argv0 leads to the exe");
		tap_is_int(id.ppid, test_pid, "symlink: ppid");
		close(c.fd);
	}
	kids_done(&k);

	/* Relative argv[0], resolved from the process's cwd. */
	kids_init(&k);
	if (tap_ok(exec_conn(&k, &e->l4, "./git-remote-https",
	               "./git-remote-https", tmpdir, NULL, &c, &kid),
	        "relative: connected")) {
		r = lookup(e->ns, &c, &id);
		tap_is_str(
		    identity_err_code(r), "identity_ok", "relative: lookup");
		tap_is_str(id.exe, self_exe, "relative: exe");
		tap_is_str(id.invoked_as, link,
		    "relative: invoked_as made absolute from the cwd");
		close(c.fd);
	}
	kids_done(&k);

	/* Exec'd by its real path: nothing to record. */
	kids_init(&k);
	if (tap_ok(
	        exec_conn(&k, &e->l4, self_exe, self_exe, NULL, NULL, &c, &kid),
	        "real path: connected")) {
		r = lookup(e->ns, &c, &id);
		tap_is_str(
		    identity_err_code(r), "identity_ok", "real path: lookup");
		tap_is_str(id.invoked_as, "", "real path: no invoked_as");
		tap_ok(!id.argv0_mismatch, "real path: no mismatch");
		close(c.fd);
	}
	kids_done(&k);

	/* Spoofed argv[0] naming another binary: never recorded as
	 * invoked_as, flagged; exe is the truth. */
	kids_init(&k);
	if (tap_ok(exec_conn(
	               &k, &e->l4, self_exe, "/bin/sh", NULL, NULL, &c, &kid),
	        "spoofed argv0: connected")) {
		r = lookup(e->ns, &c, &id);
		tap_is_str(identity_err_code(r), "identity_ok",
		    "spoofed argv0: lookup");
		tap_is_str(id.exe, self_exe, "spoofed argv0: exe is real");
		tap_is_str(id.invoked_as, "", "spoofed argv0: not invoked_as");
		tap_ok(id.argv0_mismatch, "spoofed argv0: flagged");
		tap_ok(strncmp(id.cmdline, "/bin/sh --hold", 14) == 0,
		    "spoofed argv0: cmdline shows the lie: %s", id.cmdline);
		close(c.fd);
	}
	kids_done(&k);

	/* A bare name (PATH search by the parent): no resolution at all. */
	kids_init(&k);
	if (tap_ok(exec_conn(&k, &e->l4, self_exe, "git", NULL, NULL, &c, &kid),
	        "bare argv0: connected")) {
		r = lookup(e->ns, &c, &id);
		tap_is_str(
		    identity_err_code(r), "identity_ok", "bare argv0: lookup");
		tap_is_str(id.invoked_as, "", "bare argv0: no invoked_as");
		tap_ok(!id.argv0_mismatch, "bare argv0: no mismatch claimed");
		close(c.fd);
	}
	kids_done(&k);

	/* Hardlink: the kernel names the exe by the link used. */
	tmp_path(want, "hardlinked");
	if (tap_ok(link_or_copy_hard(want), "hardlink created")) {
		kids_init(&k);
		if (tap_ok(
		        exec_conn(&k, &e->l4, want, want, NULL, NULL, &c, &kid),
		        "hardlink: connected")) {
			r = lookup(e->ns, &c, &id);
			tap_is_str(identity_err_code(r), "identity_ok",
			    "hardlink: lookup");
			tap_is_str(id.exe, want, "hardlink: exe is that name");
			tap_is_int(id.exe_file.nlink, 2, "hardlink: nlink 2");
			close(c.fd);
		}
		kids_done(&k);
	}

	/* The dynamic loader as a trampoline: the kernel runs the loader,
	 * which maps this binary; exe is the loader, never this binary. */
	static const char *const loaders[] = {
	    "/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1", NULL};
	char ldreal[PATH_MAX];
	const char *ld = NULL;
	for (int i = 0; loaders[i] != NULL && ld == NULL; i++)
		if (realpath(loaders[i], ldreal) != NULL)
			ld = loaders[i];
	if (ld == NULL) {
		tap_diag("no dynamic loader found: skipping the trampoline");
	} else {
		kids_init(&k);
		kid = kid_fork(&k);
		if (kid == 0) {
			char *argv[] = {strdup(ld), strdup(self_exe),
			    strdup("--hold"), NULL};

			enter_ns(test_ns);
			kid_connect(
			    AF_INET, (struct sockaddr *)&e->l4.addr, e->l4.len);
			kid_exec_argv(&k, ld, argv);
		}
		if (tap_ok(accept_conn(&e->l4, &c) && kids_wait(&k, "R") == kid,
		        "loader: connected")) {
			r = lookup(e->ns, &c, &id);
			tap_is_str(identity_err_code(r), "identity_ok",
			    "loader: lookup");
			tap_is_str(id.exe, ldreal, "loader: exe is the loader");
			tap_ok(strstr(id.cmdline, self_exe) != NULL,
			    "loader: the program shows in cmdline only");
			close(c.fd);
		}
		kids_done(&k);
	}

	/* Escaping and truncation of a hostile cmdline. */
	static char longarg[3000];
	memset(longarg, 'A', sizeof(longarg) - 1);
	char *extra[] = {
	    (char *)"a b", (char *)"\x01\n", (char *)"back\\slash", NULL, NULL};
	kids_init(&k);
	if (tap_ok(exec_conn(&k, &e->l4, self_exe, "x", NULL, extra, &c, &kid),
	        "cmdline: connected")) {
		r = lookup(e->ns, &c, &id);
		tap_is_str(id.cmdline, "x --hold a b \\x01\\x0a back\\\\slash",
		    "cmdline: escaped");
		tap_ok(!id.cmdline_truncated, "cmdline: complete");
		close(c.fd);
	}
	kids_done(&k);
	extra[3] = longarg;
	kids_init(&k);
	if (tap_ok(exec_conn(&k, &e->l4, self_exe, "x", NULL, extra, &c, &kid),
	        "long cmdline: connected")) {
		r = lookup(e->ns, &c, &id);
		tap_is_str(identity_err_code(r), "identity_ok",
		    "long cmdline: lookup");
		tap_ok(id.cmdline_truncated, "long cmdline: truncated");
		tap_ok(strlen(id.cmdline) < IDENTITY_CMDLINE_MAX &&
		        strlen(id.cmdline) > 900,
		    "long cmdline: capped at %zu", strlen(id.cmdline));
		close(c.fd);
	}
	kids_done(&k);
}

static void
test_caller_gone(struct env *e)
{
	struct kids k;
	struct conn c;
	struct identity id;
	pid_t kid;
	enum identity_err r;
	int status;

	kids_init(&k);
	kid = kid_fork(&k);
	if (kid == 0) {
		enter_ns(test_ns);
		kid_connect(AF_INET, (struct sockaddr *)&e->l4.addr, e->l4.len);
		_exit(0);
	}
	if (tap_ok(accept_conn(&e->l4, &c), "gone: accepted")) {
		/* Deterministic: the caller is dead and reaped. */
		tap_ok(waitpid(kid, &status, 0) == kid && WIFEXITED(status) &&
		        WEXITSTATUS(status) == 0,
		    "gone: child exited");
		r = lookup(e->ns, &c, &id);
		tap_ok(
		    r == IDENTITY_ERR_NO_OWNER || r == IDENTITY_ERR_NO_SOCKET,
		    "gone: %s", identity_err_code(r));
		tap_is_int(id.pid, 0, "gone: no pid reported");
		close(c.fd);
	}
	kids_done(&k);

	/* Still alive but closed the socket after connecting. */
	kids_init(&k);
	kid = kid_fork(&k);
	if (kid == 0) {
		int s;

		enter_ns(test_ns);
		s = kid_connect(
		    AF_INET, (struct sockaddr *)&e->l4.addr, e->l4.len);
		close(s);
		send_msg(k.ready[1], "R", getpid());
		hold_forever(k.ctl[0]);
	}
	if (tap_ok(accept_conn(&e->l4, &c) && kids_wait(&k, "R") == kid,
	        "closed: accepted")) {
		r = lookup(e->ns, &c, &id);
		tap_ok(
		    r == IDENTITY_ERR_NO_OWNER || r == IDENTITY_ERR_NO_SOCKET,
		    "closed: %s", identity_err_code(r));
		close(c.fd);
	}
	kids_done(&k);
}

static void
test_shared(struct env *e)
{
	struct kids k;
	struct conn c;
	struct identity id;
	pid_t kid, gkid = -1;
	enum identity_err r;

	/* Forked after connecting, same executable: fine, two holders. */
	kids_init(&k);
	kid = kid_fork(&k);
	if (kid == 0) {
		enter_ns(test_ns);
		kid_connect(AF_INET, (struct sockaddr *)&e->l4.addr, e->l4.len);
		if (fork() == 0) {
			send_msg(k.ready[1], "G", getpid());
			hold_forever(k.ctl[0]);
		}
		send_msg(k.ready[1], "R", getpid());
		hold_forever(k.ctl[0]);
	}
	if (tap_ok(accept_conn(&e->l4, &c), "fork: accepted")) {
		struct pollfd pf = {.fd = k.ready[0], .events = POLLIN};
		struct msg m1, m2;
		bool ok = poll(&pf, 1, TIMEOUT_MS) == 1 &&
		    read(k.ready[0], &m1, sizeof(m1)) == sizeof(m1) &&
		    poll(&pf, 1, TIMEOUT_MS) == 1 &&
		    read(k.ready[0], &m2, sizeof(m2)) == sizeof(m2);
		if (ok) {
			kids_note(&k, m1.pid);
			kids_note(&k, m2.pid);
		}
		gkid = m1.tag[0] == 'G' ? m1.pid : m2.pid;
		r = lookup(e->ns, &c, &id);
		tap_is_str(identity_err_code(r), "identity_ok", "fork: lookup");
		tap_is_int(id.nholders, 2, "fork: two holders");
		tap_is_int(id.nlisted, 1, "fork: one executable");
		tap_is_int(id.holders[0].count, 2, "fork: counted twice");
		tap_is_str(id.exe, self_exe, "fork: exe");
		tap_ok(
		    id.pid == kid || id.pid == gkid, "fork: pid is a holder");
		tap_is_int(id.pid, kid < gkid ? kid : gkid,
		    "fork: the lowest pid reports (no recent caller)");
		close(c.fd);
	}
	kids_done(&k);

	/* A holder that exec'd another binary: ambiguous. */
	kids_init(&k);
	kid = kid_fork(&k);
	if (kid == 0) {
		enter_ns(test_ns);
		kid_connect(AF_INET, (struct sockaddr *)&e->l4.addr, e->l4.len);
		if (fork() == 0)
			kid_exec_hold(&k, copy_exe, copy_exe, NULL);
		hold_forever(k.ctl[0]);
	}
	if (tap_ok(accept_conn(&e->l4, &c) && (gkid = kids_wait(&k, "R")) > 0,
	        "ambiguous: connected")) {
		r = lookup(e->ns, &c, &id);
		tap_is_str(identity_err_code(r), "identity_ambiguous",
		    "ambiguous: lookup");
		tap_is_int(id.nholders, 2, "ambiguous: two holders");
		tap_is_int(id.nlisted, 2, "ambiguous: both listed");
		bool a = id.nlisted == 2 &&
		    ((strcmp(identity_holder_exe(&id, 0), self_exe) == 0 &&
		         strcmp(identity_holder_exe(&id, 1), copy_exe) == 0) ||
		        (strcmp(identity_holder_exe(&id, 1), self_exe) == 0 &&
		            strcmp(identity_holder_exe(&id, 0), copy_exe) ==
		                0));
		tap_ok(a, "ambiguous: both executables named");
		tap_ok(id.nlisted == 2 &&
		        ((id.holders[0].pid == kid &&
		             id.holders[1].pid == gkid) ||
		            (id.holders[1].pid == kid &&
		                id.holders[0].pid == gkid)),
		    "ambiguous: both pids named");
		close(c.fd);
	}
	kids_done(&k);
}

static void
test_uid_and_deleted(struct env *e)
{
	char del[PATH_MAX], lit[PATH_MAX];
	struct kids k;
	struct conn c;
	struct identity id;
	pid_t kid;
	enum identity_err r;

	kids_init(&k);
	kid = kid_fork(&k);
	if (kid == 0) {
		enter_ns(test_ns);
		if (setgroups(0, NULL) != 0 ||
		    setresgid(65534, 65534, 65534) != 0 ||
		    setresuid(65534, 65534, 65534) != 0)
			_exit(97);
		kid_connect(AF_INET, (struct sockaddr *)&e->l4.addr, e->l4.len);
		send_msg(k.ready[1], "R", getpid());
		hold_forever(k.ctl[0]);
	}
	if (tap_ok(accept_conn(&e->l4, &c) && kids_wait(&k, "R") == kid,
	        "nobody: connected")) {
		r = lookup(e->ns, &c, &id);
		tap_is_str(
		    identity_err_code(r), "identity_ok", "nobody: lookup");
		tap_is_int(id.uid, 65534, "nobody: uid");
		tap_is_int(id.euid, 65534, "nobody: euid");
		tap_is_int(id.gid, 65534, "nobody: gid");
		tap_is_int(id.sock_uid, 65534, "nobody: socket uid");
		close(c.fd);
	}
	kids_done(&k);

	/* A binary deleted while running. */
	tmp_path(del, "deleted-bin");
	if (!tap_ok(copy_file(self_exe, del), "deleted: copy"))
		return;
	kids_init(&k);
	if (tap_ok(exec_conn(&k, &e->l4, del, del, NULL, NULL, &c, &kid),
	        "deleted: connected")) {
		tap_ok(unlink(del) == 0, "deleted: unlinked");
		r = lookup(e->ns, &c, &id);
		tap_is_str(
		    identity_err_code(r), "identity_ok", "deleted: lookup");
		tap_ok(id.deleted, "deleted: flagged");
		tap_is_str(id.exe, del, "deleted: path without the suffix");
		tap_is_int(id.exe_file.nlink, 0, "deleted: nlink 0");
		tap_is_str(id.invoked_as, "", "deleted: no invoked_as");
		close(c.fd);
	}
	kids_done(&k);

	/* A binary replaced on disk by rename (as package upgrades do). */
	tmp_path(del, "replaced-bin");
	if (tap_ok(copy_file(self_exe, del), "replaced: copy")) {
		char tmp[PATH_MAX];

		kids_init(&k);
		if (tap_ok(
		        exec_conn(&k, &e->l4, del, del, NULL, NULL, &c, &kid),
		        "replaced: connected")) {
			tmp_path(tmp, "replaced-bin.new");
			tap_ok(
			    copy_file(self_exe, tmp) && rename(tmp, del) == 0,
			    "replaced: renamed over");
			r = lookup(e->ns, &c, &id);
			tap_is_str(identity_err_code(r), "identity_ok",
			    "replaced: lookup");
			tap_ok(
			    id.deleted, "replaced: old file flagged deleted");
			tap_is_str(id.exe, del, "replaced: path");
			close(c.fd);
		}
		kids_done(&k);
	}

	/* A file literally named "... (deleted)" is not deleted. */
	tmp_path(lit, "lit (deleted)");
	if (!tap_ok(copy_file(self_exe, lit), "literal: copy"))
		return;
	kids_init(&k);
	if (tap_ok(exec_conn(&k, &e->l4, lit, lit, NULL, NULL, &c, &kid),
	        "literal: connected")) {
		r = lookup(e->ns, &c, &id);
		tap_is_str(
		    identity_err_code(r), "identity_ok", "literal: lookup");
		tap_ok(!id.deleted, "literal: not deleted");
		tap_is_str(id.exe, lit, "literal: full name kept");
		close(c.fd);
	}
	kids_done(&k);
}

static void
test_namespaces(struct env *e)
{
	struct listener lh;
	struct kids k;
	struct conn c;
	struct identity id;
	pid_t kid;
	enum identity_err r;

	/* A connection in egressd's own namespace, through ctx(-1). */
	if (!tap_ok(listen_in(-1, AF_INET, "127.0.0.1", false, &lh),
	        "host listener"))
		return;
	kids_init(&k);
	if (tap_ok(simple_conn(&k, -1, &lh, AF_INET, &c, &kid),
	        "host: connected")) {
		r = lookup(e->host, &c, &id);
		tap_is_str(identity_err_code(r), "identity_ok", "host: lookup");
		check_self(&id, kid, "host");
		r = lookup(e->ns, &c, &id);
		tap_is_str(identity_err_code(r), "identity_no_socket",
		    "host connection through the sandbox ctx: no socket");
		close(c.fd);
	}
	kids_done(&k);
	close(lh.fd);

	/* Nested pid namespace: the pid reported is ours, not the child's
	 * own view (which is 1). */
	kids_init(&k);
	kid = kid_fork(&k);
	if (kid == 0) {
		pid_t g;

		enter_ns(test_ns);
		if (unshare(CLONE_NEWPID) != 0)
			_exit(98);
		g = fork();
		if (g == 0) {
			kid_connect(
			    AF_INET, (struct sockaddr *)&e->l4.addr, e->l4.len);
			send_msg(k.ready[1], "R", getpid());
			hold_forever(k.ctl[0]);
		}
		send_msg(k.ready[1], "P", g);
		hold_forever(k.ctl[0]);
	}
	if (tap_ok(accept_conn(&e->l4, &c), "pidns: connected")) {
		struct pollfd pf = {.fd = k.ready[0], .events = POLLIN};
		struct msg m1, m2;
		pid_t g = -1;

		if (poll(&pf, 1, TIMEOUT_MS) == 1 &&
		    read(k.ready[0], &m1, sizeof(m1)) == sizeof(m1) &&
		    poll(&pf, 1, TIMEOUT_MS) == 1 &&
		    read(k.ready[0], &m2, sizeof(m2)) == sizeof(m2)) {
			g = m1.tag[0] == 'P' ? m1.pid : m2.pid;
			tap_is_int(m1.tag[0] == 'R' ? m1.pid : m2.pid, 1,
			    "pidns: the caller sees itself as pid 1");
			kids_note(&k, g);
		}
		r = lookup(e->ns, &c, &id);
		tap_is_str(
		    identity_err_code(r), "identity_ok", "pidns: lookup");
		tap_is_int(id.pid, g, "pidns: pid in egressd's namespace");
		tap_is_int(id.ppid, kid, "pidns: ppid");
		tap_is_int(id.nancestors, 1, "pidns: one ancestor");
		tap_ok(id.nancestors == 1 && id.ancestors[0].pid == kid &&
		        strcmp(identity_ancestor_exe(&id, 0), self_exe) == 0,
		    "pidns: the ancestor is the middle process");
		close(c.fd);
	}
	kids_done(&k);
}

static void
test_ancestors(struct env *e)
{
	char link[PATH_MAX];
	struct kids k;
	struct conn c;
	struct identity id;
	pid_t kid;
	enum identity_err r;

	/* A -> B, B exec'd through the symlink. */
	tmp_path(link, "git-remote-https");
	kids_init(&k);
	kid = kid_fork(&k);
	if (kid == 0) {
		enter_ns(test_ns);
		if (fork() == 0) {
			kid_connect(
			    AF_INET, (struct sockaddr *)&e->l4.addr, e->l4.len);
			kid_exec_hold(&k, link, link, NULL);
		}
		hold_forever(k.ctl[0]);
	}
	pid_t b = -1;
	if (tap_ok(accept_conn(&e->l4, &c) && (b = kids_wait(&k, "R")) > 0,
	        "ancestors: connected")) {
		r = lookup(e->ns, &c, &id);
		tap_is_str(
		    identity_err_code(r), "identity_ok", "ancestors: lookup");
		tap_is_int(id.pid, b, "ancestors: pid");
		tap_is_int(id.nancestors, 1, "ancestors: stops at the netns");
		tap_ok(id.nancestors == 1 && id.ancestors[0].pid == kid &&
		        strcmp(identity_ancestor_exe(&id, 0), self_exe) == 0,
		    "ancestors: parent and its exe");
		tap_ok(!id.ancestors_truncated, "ancestors: complete");
		close(c.fd);
	}
	kids_done(&k);

	/* Twelve generations inside the namespace: eight listed. */
	kids_init(&k);
	kid = kid_fork(&k);
	if (kid == 0) {
		enter_ns(test_ns);
		for (int depth = 0; depth < 11; depth++) {
			if (fork() != 0)
				hold_forever(k.ctl[0]);
		}
		kid_connect(AF_INET, (struct sockaddr *)&e->l4.addr, e->l4.len);
		send_msg(k.ready[1], "R", getpid());
		hold_forever(k.ctl[0]);
	}
	if (tap_ok(accept_conn(&e->l4, &c) && kids_wait(&k, "R") > 0,
	        "deep: connected")) {
		r = lookup(e->ns, &c, &id);
		tap_is_str(identity_err_code(r), "identity_ok", "deep: lookup");
		tap_is_int(
		    id.nancestors, IDENTITY_ANCESTORS_MAX, "deep: capped");
		tap_ok(id.ancestors_truncated, "deep: truncation flagged");
		tap_ok(id.nancestors > 1 && id.ancestors[0].pid == id.ppid,
		    "deep: parent first");
		close(c.fd);
	}
	/* The intermediate generations are our descendants: reaped by
	 * kids_done as a subreaper after PDEATHSIG-free kill below. */
	kids_done(&k);
}

/* Socket passed with SCM_RIGHTS to a process outside the namespace. */
static void
send_fd(int over, int fd)
{
	char c = 'F';
	struct iovec iov = {.iov_base = &c, .iov_len = 1};
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msghdr mh = {.msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = cbuf,
	    .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm;

	memset(cbuf, 0, sizeof(cbuf));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	if (sendmsg(over, &mh, 0) != 1)
		_exit(99);
}

static int
recv_fd(int over)
{
	char c;
	struct iovec iov = {.iov_base = &c, .iov_len = 1};
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msghdr mh = {.msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = cbuf,
	    .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(over, &mh, 0) != 1)
		_exit(99);
	cm = CMSG_FIRSTHDR(&mh);
	if (cm == NULL || cm->cmsg_type != SCM_RIGHTS)
		_exit(99);
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static void
test_outsiders(struct env *e, bool keep)
{
	const char *what = keep ? "passed+kept" : "passed";
	struct identity_stats s0, s1;
	struct kids k;
	struct conn c;
	struct identity id;
	pid_t a, b = -1;
	enum identity_err r;
	int sp[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0)
		return;
	kids_init(&k);
	/* B: stays in egressd's namespace, receives the socket. */
	b = kid_fork(&k);
	if (b == 0) {
		int fd = recv_fd(sp[1]);

		(void)fd;
		send_msg(k.ready[1], "B", getpid());
		hold_forever(k.ctl[0]);
	}
	a = kid_fork(&k);
	if (a == 0) {
		int s;

		enter_ns(test_ns);
		s = kid_connect(
		    AF_INET, (struct sockaddr *)&e->l4.addr, e->l4.len);
		send_fd(sp[0], s);
		if (!keep)
			close(s);
		send_msg(k.ready[1], "A", getpid());
		hold_forever(k.ctl[0]);
	}
	close(sp[0]);
	close(sp[1]);
	identity_set_full_scan_interval(e->ns, 0);
	if (tap_ok(accept_conn(&e->l4, &c), "%s: connected", what)) {
		struct pollfd pf = {.fd = k.ready[0], .events = POLLIN};
		struct msg m;

		for (int i = 0; i < 2; i++)
			if (poll(&pf, 1, TIMEOUT_MS) != 1 ||
			    read(k.ready[0], &m, sizeof(m)) != sizeof(m))
				tap_diag("%s: missing ready message", what);
		identity_stats_get(e->ns, &s0);
		r = lookup(e->ns, &c, &id);
		identity_stats_get(e->ns, &s1);
		if (!keep) {
			tap_is_str(identity_err_code(r), "identity_ok",
			    "%s: found outside the namespace", what);
			tap_is_int(id.pid, b, "%s: the receiver", what);
			tap_is_int(s1.full_scans - s0.full_scans, 1,
			    "%s: through one whole-host scan (counted)", what);
			/* The receiver is now a candidate: no more scans. */
			r = lookup(e->ns, &c, &id);
			identity_stats_get(e->ns, &s0);
			tap_ok(r == IDENTITY_OK && id.pid == b &&
			        s0.full_scans == s1.full_scans,
			    "%s: again, without a scan", what);
		} else {
			/* Known limit: a co-holder outside the namespace
			 * that did not descend from a sandbox process is not
			 * scanned when a sandbox holder exists. */
			tap_todo(
			    r == IDENTITY_ERR_AMBIGUOUS || id.nholders == 2,
			    "passed+kept: outsider co-holder seen",
			    "not covered, documented in identity.c");
			tap_ok(r == IDENTITY_OK && id.pid == a,
			    "%s: the sandbox holder reports", what);
		}
		close(c.fd);
	}
	identity_set_full_scan_interval(e->ns, 1000);
	kids_done(&k);
}

static void
test_unshared_child(struct env *e)
{
	struct kids k;
	struct conn c;
	struct identity id;
	pid_t kid, g = -1;
	enum identity_err r;

	/* A sandbox process's child leaves the namespace with the socket
	 * and execs another binary: still found (parent is a candidate). */
	kids_init(&k);
	kid = kid_fork(&k);
	if (kid == 0) {
		enter_ns(test_ns);
		kid_connect(AF_INET, (struct sockaddr *)&e->l4.addr, e->l4.len);
		if (fork() == 0) {
			if (unshare(CLONE_NEWNET) != 0)
				_exit(98);
			kid_exec_hold(&k, copy_exe, copy_exe, NULL);
		}
		hold_forever(k.ctl[0]);
	}
	if (tap_ok(accept_conn(&e->l4, &c) && (g = kids_wait(&k, "R")) > 0,
	        "unshared: connected")) {
		identity_set_full_scan_interval(e->ns, -1);
		r = lookup(e->ns, &c, &id);
		tap_is_str(identity_err_code(r), "identity_ambiguous",
		    "unshared: the child outside the netns is a holder too");
		tap_is_int(id.nholders, 2, "unshared: two holders");
		identity_set_full_scan_interval(e->ns, 1000);
		close(c.fd);
	}
	kids_done(&k);
}

static void
test_late_setns(struct env *e)
{
	struct identity_stats s0, s1;
	struct kids k;
	struct conn c;
	struct identity id;
	pid_t kid;
	enum identity_err r;
	char go;

	/* `ip netns exec`: a process seen outside, that setns()'s later. */
	int gop[2];
	if (pipe2(gop, O_CLOEXEC) != 0)
		return;
	kids_init(&k);
	kid = kid_fork(&k);
	if (kid == 0) {
		send_msg(k.ready[1], "B", getpid());
		if (read(gop[0], &go, 1) != 1)
			_exit(97);
		enter_ns(test_ns);
		kid_connect(AF_INET, (struct sockaddr *)&e->l4.addr, e->l4.len);
		send_msg(k.ready[1], "R", getpid());
		hold_forever(k.ctl[0]);
	}
	close(gop[0]);
	if (kids_wait(&k, "B") != kid) {
		close(gop[1]);
		kids_done(&k);
		return;
	}
	tap_ok(identity_refresh(e->ns, false), "late setns: refreshed");
	if (write(gop[1], "g", 1) != 1)
		tap_diag("late setns: go");
	close(gop[1]);
	identity_set_full_scan_interval(e->ns, -1);
	if (tap_ok(accept_conn(&e->l4, &c) && kids_wait(&k, "R") == kid,
	        "late setns: connected")) {
		identity_stats_get(e->ns, &s0);
		r = lookup(e->ns, &c, &id);
		identity_stats_get(e->ns, &s1);
		tap_is_str(identity_err_code(r), "identity_ok",
		    "late setns: found (probation re-check, no host scan)");
		tap_is_int(id.pid, kid, "late setns: pid");
		tap_is_int(s1.full_scans - s0.full_scans, 0,
		    "late setns: no host scan");
		close(c.fd);
	}
	identity_set_full_scan_interval(e->ns, 1000);
	kids_done(&k);
}

static void
test_from_pid(struct env *e)
{
	struct kids k;
	struct identity id;
	pid_t kid;
	enum identity_err r;
	siginfo_t si;

	kids_init(&k);
	kid = kid_fork(&k);
	if (kid == 0) {
		enter_ns(test_ns);
		prctl(PR_SET_NAME, ") 1 2 (");
		send_msg(k.ready[1], "R", getpid());
		hold_forever(k.ctl[0]);
	}
	if (tap_ok(kids_wait(&k, "R") == kid, "from_pid: child")) {
		r = identity_from_pid(e->ns, kid, &id);
		tap_is_str(
		    identity_err_code(r), "identity_ok", "from_pid: lookup");
		tap_is_int(id.pid, kid, "from_pid: pid");
		tap_is_int(
		    id.ppid, test_pid, "from_pid: ppid despite a hostile comm");
		tap_is_int(
		    id.start_time, start_time_of(kid), "from_pid: start time");
		tap_is_str(id.exe, self_exe, "from_pid: exe");
		tap_is_int(id.nholders, 1, "from_pid: nholders");
		tap_is_int(id.sock_ino, 0, "from_pid: no socket");
	}
	kids_done(&k);

	/* A zombie: exited, not reaped. */
	kids_init(&k);
	kid = kid_fork(&k);
	if (kid == 0)
		_exit(0);
	memset(&si, 0, sizeof(si));
	if (tap_ok(waitid(P_PID, (id_t)kid, &si, WEXITED | WNOWAIT) == 0,
	        "zombie: exited")) {
		r = identity_from_pid(e->ns, kid, &id);
		tap_is_str(identity_err_code(r), "identity_no_owner",
		    "zombie: no owner");
	}
	kids_done(&k);
	r = identity_from_pid(e->ns, kid, &id);
	tap_is_str(
	    identity_err_code(r), "identity_no_owner", "reaped pid: no owner");
	r = identity_from_pid(e->ns, 0, &id);
	tap_is_str(identity_err_code(r), "identity_invalid", "pid 0: invalid");
}

static void
test_unix_peer(struct env *e)
{
	struct sockaddr_un sun;
	struct kids k;
	struct identity id;
	pid_t kid;
	enum identity_err r;
	socklen_t len;
	int l, c = -1;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path + 1, sizeof(sun.sun_path) - 1,
	    "egressd-test-identity-%d", (int)getpid());
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    strlen(sun.sun_path + 1));
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!tap_ok(l >= 0 && bind(l, (struct sockaddr *)&sun, len) == 0 &&
	            listen(l, 4) == 0,
	        "unix: listener"))
		return;
	kids_init(&k);
	kid = kid_fork(&k);
	if (kid == 0) {
		int s = socket(AF_UNIX, SOCK_STREAM, 0);

		if (s < 0 || connect(s, (struct sockaddr *)&sun, len) != 0)
			_exit(95);
		kid_exec_hold(&k, copy_exe, copy_exe, NULL);
	}
	if (tap_ok(kids_wait(&k, "R") == kid, "unix: child exec'd")) {
		c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		r = identity_from_unix_peer(e->host, c, &id);
		tap_is_str(identity_err_code(r), "identity_ok", "unix: lookup");
		if (r != IDENTITY_OK)
			tap_diag("err_pid %d errno %d exe '%s' start %llu",
			    (int)id.err_pid, id.err_errno, id.exe,
			    (unsigned long long)id.start_time);

		tap_is_int(id.pid, kid, "unix: pid");
		tap_is_str(id.exe, copy_exe, "unix: exe after exec");
	}
	kids_done(&k);
	if (c >= 0) {
		r = identity_from_unix_peer(e->host, c, &id);
		tap_is_str(identity_err_code(r), "identity_no_owner",
		    "unix: peer exited");
		close(c);
	}
	close(l);
}

/*
 * egressd without the right to read the sandbox's /proc: a checker child
 * drops to nobody after creating its context; every lookup fails closed.
 */
static void
test_unreadable(struct env *e)
{
	struct kids k;
	struct conn c;
	pid_t kid, checker;
	int status, res[2];

	kids_init(&k);
	if (!tap_ok(simple_conn(&k, test_ns, &e->l4, AF_INET, &c, &kid),
	        "unreadable: connected")) {
		kids_done(&k);
		return;
	}
	if (pipe2(res, O_CLOEXEC) != 0)
		return;
	checker = kid_fork(&k);
	if (checker == 0) {
		char err[256];
		struct identity_ctx *ctx =
		    identity_new(test_ns, err, sizeof(err));
		static struct identity id;
		int out[2] = {-1, -1};

		if (ctx == NULL)
			_exit(1);
		if (setgroups(0, NULL) != 0 ||
		    setresgid(65534, 65534, 65534) != 0 ||
		    setresuid(65534, 65534, 65534) != 0)
			_exit(2);
		out[0] = (int)lookup(ctx, &c, &id);
		out[1] = id.err_pid;
		if (write(res[1], out, sizeof(out)) != sizeof(out))
			_exit(3);
		_exit(0);
	}
	close(res[1]);
	int out[2] = {-1, -1};
	bool got = read(res[0], out, sizeof(out)) == sizeof(out);
	close(res[0]);
	tap_ok(waitpid(checker, &status, 0) == checker && WIFEXITED(status) &&
	        WEXITSTATUS(status) == 0 && got,
	    "unreadable: checker ran");
	tap_is_str(identity_err_code((enum identity_err)out[0]),
	    "identity_unreadable", "unreadable: fails closed");
	tap_is_int(out[1], kid, "unreadable: names the process");
	close(c.fd);
	kids_done(&k);
}

static void
test_invalid(struct env *e)
{
	struct sockaddr_in a4 = {.sin_family = AF_INET};
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6};
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	struct identity id;
	char err[256];
	int fd;

	a6.sin6_addr.s6_addr[15] = 1;
	tap_is_str(identity_err_code(identity_lookup(e->ns,
	               (struct sockaddr *)&a4, (struct sockaddr *)&a6, &id)),
	    "identity_invalid", "v4 client, v6 local: invalid");
	tap_is_str(identity_err_code(identity_lookup(e->ns,
	               (struct sockaddr *)&un, (struct sockaddr *)&un, &id)),
	    "identity_invalid", "AF_UNIX: invalid");
	tap_is_str(identity_err_code(identity_lookup(
	               e->ns, NULL, (struct sockaddr *)&a4, &id)),
	    "identity_invalid", "NULL: invalid");
	tap_is_str(identity_err_code(identity_lookup(e->ns,
	               (struct sockaddr *)&a4, (struct sockaddr *)&a4, &id)),
	    "identity_no_socket", "0.0.0.0:0 tuple: no socket");

	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	err[0] = '\0';
	tap_ok(identity_new(fd, err, sizeof(err)) == NULL && err[0] != '\0',
	    "identity_new on /dev/null fails: %s", err);
	close(fd);
	char cur[64], now[64];
	ssize_t n1 = readlink("/proc/thread-self/ns/net", cur, sizeof(cur));
	(void)n1;
	identity_free(NULL);
	tap_ok(readlink("/proc/thread-self/ns/net", now, sizeof(now)) > 0 &&
	        memcmp(cur, now, 16) == 0,
	    "still in our own namespace");
}

static void
test_stats(struct env *e)
{
	struct identity_stats s;

	identity_stats_get(e->ns, &s);
	tap_ok(s.lookups > 20, "stats: lookups %llu",
	    (unsigned long long)s.lookups);
	tap_ok(s.ok > 10 && s.errors[IDENTITY_ERR_AMBIGUOUS] >= 1 &&
	        s.errors[IDENTITY_ERR_NO_SOCKET] >= 1,
	    "stats: results counted");
	tap_ok(s.fast_hits > 10, "stats: fast hits %llu",
	    (unsigned long long)s.fast_hits);
	tap_ok(s.candidates < 64, "stats: candidates %llu (the namespace only)",
	    (unsigned long long)s.candidates);
	tap_ok(s.full_refreshes >= 1, "stats: full refreshes %llu",
	    (unsigned long long)s.full_refreshes);
	/* Linux has placed pid P at readdir offset P + 258 since 2.6; if that
	 * ever changes, refreshes still work but cost a full listing. */
	tap_ok(s.proc_seek == 1, "stats: refreshes seek into /proc");
	tap_diag("lookups %llu ok %llu fast %llu mru %llu refreshes %llu "
	         "new pids %llu full refreshes %llu host scans %llu "
	         "skipped %llu mean %.1f us max %.1f us",
	    (unsigned long long)s.lookups, (unsigned long long)s.ok,
	    (unsigned long long)s.fast_hits, (unsigned long long)s.mru_hits,
	    (unsigned long long)s.refreshes, (unsigned long long)s.refresh_pids,
	    (unsigned long long)s.full_refreshes,
	    (unsigned long long)s.full_scans,
	    (unsigned long long)s.full_scans_skipped,
	    s.lookups ? (double)s.lookup_ns_total / (double)s.lookups / 1e3 : 0,
	    (double)s.lookup_ns_max / 1e3);
}

int
main(int argc, char **argv)
{
	struct env e;
	char err[256];

	if (argc >= 2 && strcmp(argv[1], "--hold") == 0)
		return hold_main(argc, argv);
	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root\n");
		return 0;
	}
	/* A hung case must not hang `make unit`: SIGALRM kills us, and
	 * PDEATHSIG every child. */
	alarm(240);
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_pid = getpid();
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/* Before any output: a skip must be the only line. */
	host_ns = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	test_ns = make_netns();

	test_parse_stat();
	test_parse_status();
	test_format_cmdline();
	test_err_names();

	if (realpath("/proc/self/exe", self_exe) == NULL) {
		perror("realpath");
		return 2;
	}
	char t[] = "/tmp/egressd-identity-XXXXXX";
	if (mkdtemp(t) == NULL || realpath(t, tmpdir) == NULL) {
		perror("mkdtemp");
		return 2;
	}
	atexit(cleanup_tmp);
	tmp_path(copy_exe, "copy-of-test");
	if (!copy_file(self_exe, copy_exe)) {
		perror("copy");
		return 2;
	}
	memset(&e, 0, sizeof(e));
	e.ns = identity_new(test_ns, err, sizeof(err));
	if (!tap_ok(e.ns != NULL, "identity_new(test netns): %s",
	        e.ns ? "ok" : err))
		return tap_done();
	e.host = identity_new(-1, err, sizeof(err));
	if (!tap_ok(
	        e.host != NULL, "identity_new(-1): %s", e.host ? "ok" : err))
		return tap_done();
	if (!tap_ok(listen_in(test_ns, AF_INET, "127.0.0.1", false, &e.l4),
	        "listener in the test namespace"))
		return tap_done();

	test_basic_v4(&e);
	test_many_fds(&e);
	test_v6_and_mapped(&e);
	test_exec_paths(&e);
	test_caller_gone(&e);
	test_shared(&e);
	test_uid_and_deleted(&e);
	test_namespaces(&e);
	test_ancestors(&e);
	test_outsiders(&e, false);
	test_outsiders(&e, true);
	test_unshared_child(&e);
	test_late_setns(&e);
	test_from_pid(&e);
	test_unix_peer(&e);
	test_unreadable(&e);
	test_invalid(&e);
	test_stats(&e);

	close(e.l4.fd);
	identity_free(e.ns);
	identity_free(e.host);
	close(test_ns);
	close(host_ns);
	return tap_done();
}
