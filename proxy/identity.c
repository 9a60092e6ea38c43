/* SPDX-License-Identifier: ISC */
/*
 * Caller identity: sock_diag by exact 4-tuple in the sandbox's network
 * namespace, then every process holding the socket, then what /proc says
 * about them. Owns the netlink socket, the candidate cache (the processes of
 * the sandbox, refreshed incrementally), the recent-caller cache and the
 * /proc parsing; leaves what an identity may reach to the policy.
 *
 * Per lookup:
 *
 *   client, local ──sock_diag (exact tuple, one request)──▶ uid, inode
 *        │                                  (inode 0: orphaned → NO_OWNER)
 *   /proc/loadavg last_pid (+ /proc/stat fork counter, now and then)
 *        │   ──▶ only the pids allocated since the last lookup, by seeking
 *        │       into /proc's readdir; each one: in the netns? child of a
 *        │       candidate? young (probation)?
 *   every candidate's /proc/PID/fd (dir fd held open) ──readlinkat──▶ ALL
 *        │   holders. None: young outsiders again, refresh, then the
 *        │   whole host (rate limited), whose holders become candidates
 *   reporting holder (most recent caller, else lowest pid), through a
 *   pinned /proc/PID (+ pidfd): stat, exe, stat(exe), status, cmdline,
 *   invoked_as, exe again (exec?), fd still ours, pidfd alive ─▶ ancestors
 *   other holders: exe only (+ same re-checks) ─▶ same file? else AMBIGUOUS
 *
 * Cost: tens of microseconds fixed, plus ~2.5 us per fd and ~5 us per
 * process in the sandbox (every candidate is scanned: finding one holder is
 * not enough, all must be found); flat in the number of host processes.
 *
 * Pid reuse. Per-process reads go through fds of /proc/PID (a directory or
 * a stat file) opened once: lookups and reads through them fail once that
 * process is gone, so a recycled pid never lends its data to a lookup that
 * started on another process; the pidfd and the final "fd N still is our
 * socket" check bind what was read to a live holder.
 *
 * What "all holders" covers, and what it does not:
 *  - covered: every process in the sandbox netns; a process created by a
 *    candidate even if it left the netns (unshare) before we saw it; a
 *    process that setns()'d into the netns within IDENTITY_PROBATION_MS of
 *    its creation (`ip netns exec`); and, only when no candidate holds the
 *    socket, any process on the host (a socket passed with SCM_RIGHTS to an
 *    outsider, then closed in the sandbox, is attributed to the outsider).
 *  - not covered: an outsider that received the socket (SCM_RIGHTS,
 *    pidfd_getfd) while a sandbox process still holds it: the lookup reports
 *    the sandbox holder and misses the co-holder, so it does not turn
 *    AMBIGUOUS. Receiving needs a channel to a non-sandbox process (a
 *    pathname unix socket on a shared filesystem, an inherited socketpair)
 *    whose owner outside cooperates; abstract unix sockets are per netns.
 *    The same applies to a process that entered the netns later than the
 *    probation window (only root can setns into it).
 *  - no holder at all: a socket only in flight in an SCM_RIGHTS message, or
 *    only registered as an io_uring fixed file, is in no fd table: the
 *    lookup fails with NO_OWNER (deny), after a (rate limited) host scan.
 *  - after the lookup: fds can still be passed and holders can exec; the
 *    identity is the one bound at accept (SECURITY-CASES.md invariant 7).
 *  - /proc/PID/fd is the thread group's table: a thread that unshared its
 *    table (CLONE_FILES off) runs the same exe, so it cannot make a lookup
 *    ambiguous; holding the socket alone it yields NO_OWNER.
 *  - processes whose netns link we may not read are not candidates
 *    (stats.unclassified): more privileged than egressd, not the sandbox.
 *  - code injected into an allowed binary (LD_PRELOAD, ptrace) runs as that
 *    binary: exe identity cannot see it; nor can it see the script an
 *    interpreter runs (argv is the caller's word).
 *  - the incremental refresh assumes fewer than 4 million forks a second:
 *    it re-reads the kernel fork counter whenever half a pid cycle could
 *    have elapsed and refreshes fully after a possible wrap.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/openat2.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "identity.h"
#include "nlns.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* asm-generic value (x86, arm64), Linux 6.5 */
#endif

#define IDENTITY_MRU_LEN       8
#define IDENTITY_CAND_FD_MAX   4096 /* candidates whose fd dir stays open */
#define IDENTITY_PROBATION_MAX 64
#define IDENTITY_PROBATION_MS  2000
#define IDENTITY_FULL_SCAN_MS  1000
#define IDENTITY_NL_RECV_TRIES 4
#define IDENTITY_FDS_ORDERED   65536 /* fds of one process read newest first */

/* A process of the sandbox, sorted by pid. */
struct cand {
	pid_t pid;
	int fd_dir;  /* /proc/PID/fd, pins the process; -1 past the fd cap */
	int last_fd; /* where the last lookup found its socket; -1 none */
};

/*
 * A process seen outside the namespace while younger than
 * IDENTITY_PROBATION_MS: `ip netns exec` forks first and setns()
 * afterwards, so it is looked at again before a whole-host scan.
 */
struct probation {
	pid_t pid;
	int pid_dir;
	uint64_t until_ms;
};

/* A recent reporting holder, with its /proc files kept open. */
struct mru {
	pid_t pid; /* 0: free */
	int pid_dir, stat_fd, status_fd, cmdline_fd, pidfd;
	int8_t same_root; /* shares our root and mount ns: -1 unknown */
	uint64_t used;
};

/* A holder found by the fd scan. */
struct found {
	pid_t pid;
	int fdnum;
};

/* Files of the reporting holder while it is examined. */
struct pfiles {
	int pid_dir, stat_fd, status_fd, cmdline_fd, pidfd;
	int8_t same_root; /* as in struct mru */
};

struct identity_ctx {
	struct nl_sock *nl;
	int proc_fd;    /* /proc: openat base and readdir */
	int stat_fd;    /* /proc/stat: fork counter */
	int loadavg_fd; /* /proc/loadavg: last allocated pid */
	uint64_t ns_dev, ns_ino;
	uint64_t root_dev, root_ino; /* our "/" */
	uint64_t mnt_dev, mnt_ino;   /* our mount namespace */
	long clk_tck;
	bool have_pidfd;
	long tgid_off;     /* /proc readdir offset of pid 0; -1: cannot seek */
	pid_t last_pid;    /* last allocated pid at the last refresh */
	uint64_t forks;    /* kernel fork counter ... */
	uint64_t forks_ms; /* ... read at this time */
	pid_t pid_max;
	uint64_t nr_tasks;
	long full_scan_interval_ms;
	uint64_t last_full_scan_ms;
	bool full_scan_ever;

	struct cand *cand;
	size_t ncand, cand_cap, ncand_fds;
	struct probation prob[IDENTITY_PROBATION_MAX];
	size_t nprob;
	struct mru mru[IDENTITY_MRU_LEN];
	uint64_t mru_clock;
	struct found *found;
	size_t nfound, found_cap;
	pid_t unreadable_pid;
	int unreadable_errno;

	struct identity_stats st;
	char want[48]; /* "socket:[INODE]" */
	size_t wantlen;

	/* Scratch, kept here so that a lookup allocates nothing. */
	_Alignas(8) unsigned char nlbuf[8192];
	_Alignas(8) unsigned char dents_proc[16384];
	_Alignas(8) unsigned char dents_fd[8192];
	int fdnums[IDENTITY_FDS_ORDERED]; /* scan_fd_dir */
	char rbuf[4096];
	char statbuf[65536]; /* /proc/stat grows with CPUs and IRQs */
	char raw_cmdline[IDENTITY_CMDLINE_MAX + 1];
	char path[PATH_MAX];
	char path2[PATH_MAX];
	char exe2[PATH_MAX];
};

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t
mono_ms(void)
{
	return mono_ns() / 1000000u;
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int
sys_pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static bool
pidfd_exited(int pidfd)
{
	struct pollfd p = {.fd = pidfd, .events = POLLIN};

	/* POLLIN: the whole thread group has exited (zombie or reaped). */
	return poll(&p, 1, 0) != 0;
}

/* "123" -> 123; false for anything else (names in /proc, fd dirs). */
static bool
parse_uint_name(const char *s, long max, long *out)
{
	long v = 0;

	if (*s == '\0')
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (*s - '0');
		if (v > max)
			return false;
	}
	*out = v;
	return true;
}

static void
pid_path(char *buf, size_t len, pid_t pid, const char *rest)
{
	snprintf(buf, len, "%d%s", (int)pid, rest);
}

/*
 * One read of a small /proc file from offset 0 into buf (NUL-terminated).
 * seq_file regenerates the content on a read at 0, so kept fds are reused.
 */
static ssize_t
pread_small(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

static ssize_t
read_small_at(int dir, const char *name, char *buf, size_t size)
{
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = pread_small(fd, buf, size);
	close(fd);
	return n;
}

/* ------------------------------------------------------------------ */
/* Pure parsers                                                        */

static bool
parse_u64(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;

	if (p >= end || *p < '0' || *p > '9')
		return false;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*pp = p;
	*out = v;
	return true;
}

bool
identity_parse_stat(
    const char *buf, size_t len, pid_t *ppid, uint64_t *start_time)
{
	const char *end = buf + len, *p = NULL;
	uint64_t v;
	int field;

	/* comm (field 2) may hold ')' and spaces: it ends at the last ')'. */
	for (size_t i = len; i > 0; i--) {
		if (buf[i - 1] == ')') {
			p = buf + i;
			break;
		}
	}
	if (p == NULL)
		return false;
	/* Field 3 (state) is one character. */
	if (end - p < 3 || p[0] != ' ' || p[2] != ' ')
		return false;
	p += 3;
	for (field = 4; field <= 22; field++) {
		if (field > 4 && (p >= end || *p++ != ' '))
			return false;
		/* Fields 4-22 are decimal; some (tty_nr, priority) may be
		 * negative, none of the two we keep is. */
		if (p < end && *p == '-' && field != 4 && field != 22)
			p++;
		if (!parse_u64(&p, end, &v))
			return false;
		if (field == 4) {
			if (v > INT32_MAX)
				return false;
			*ppid = (pid_t)v;
		}
	}
	*start_time = v;
	return true;
}

/* Parses "Uid:\tR\tE\t..." style values after the key. */
static bool
parse_id_pair(const char *p, const char *end, uint32_t *real, uint32_t *eff)
{
	uint64_t v[2];

	for (int i = 0; i < 2; i++) {
		if (p >= end || (*p != '\t' && *p != ' '))
			return false;
		while (p < end && (*p == '\t' || *p == ' '))
			p++;
		if (!parse_u64(&p, end, &v[i]) || v[i] > UINT32_MAX)
			return false;
	}
	*real = (uint32_t)v[0];
	*eff = (uint32_t)v[1];
	return true;
}

bool
identity_parse_status(const char *buf, size_t len, uid_t *uid, uid_t *euid,
    gid_t *gid, gid_t *egid)
{
	const char *p = buf, *end = buf + len;
	bool have_uid = false, have_gid = false;
	uint32_t r, e;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t ll = (size_t)(le - p);

		if (ll >= 4 && memcmp(p, "Uid:", 4) == 0) {
			if (have_uid || !parse_id_pair(p + 4, le, &r, &e))
				return false;
			*uid = r;
			*euid = e;
			have_uid = true;
		} else if (ll >= 4 && memcmp(p, "Gid:", 4) == 0) {
			if (have_gid || !parse_id_pair(p + 4, le, &r, &e))
				return false;
			*gid = r;
			*egid = e;
			have_gid = true;
		}
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	return have_uid && have_gid;
}

bool
identity_format_cmdline(const char *raw, size_t len, char *out, size_t outlen)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	/* The last argument's terminator is not a separator. */
	if (len > 0 && raw[len - 1] == '\0')
		len--;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)raw[i];
		char esc[4];
		size_t n;

		if (c == '\0') {
			esc[0] = ' ';
			n = 1;
		} else if (c == '\\') {
			esc[0] = esc[1] = '\\';
			n = 2;
		} else if (c >= 0x20 && c <= 0x7e) {
			esc[0] = (char)c;
			n = 1;
		} else {
			esc[0] = '\\';
			esc[1] = 'x';
			esc[2] = hex[c >> 4];
			esc[3] = hex[c & 15];
			n = 4;
		}
		if (o + n >= outlen) {
			out[o] = '\0';
			return false;
		}
		memcpy(out + o, esc, n);
		o += n;
	}
	out[o] = '\0';
	return true;
}

/* ------------------------------------------------------------------ */
/* Errors and stats                                                    */

static const struct {
	const char *code, *msg;
} identity_errs[IDENTITY_ERR__COUNT] = {
    [IDENTITY_OK] = {"identity_ok", "caller identified"},
    [IDENTITY_ERR_INVALID] = {"identity_invalid",
        "invalid lookup arguments (address families differ or are not IP)"},
    [IDENTITY_ERR_NETLINK] = {"identity_netlink",
        "the sock_diag netlink request failed"},
    [IDENTITY_ERR_NO_SOCKET] = {"identity_no_socket",
        "no such TCP connection in the sandbox network namespace"},
    [IDENTITY_ERR_NO_OWNER] = {"identity_no_owner",
        "no process holds the connection (the caller exited or closed it)"},
    [IDENTITY_ERR_UNREADABLE] = {"identity_unreadable",
        "a process that may hold the connection cannot be inspected in /proc"},
    [IDENTITY_ERR_PID_REUSED] = {"identity_pid_reused",
        "the calling process exited, exec'd or gave up the connection during "
        "the lookup"},
    [IDENTITY_ERR_AMBIGUOUS] = {"identity_ambiguous",
        "processes running different executables hold the connection"},
    [IDENTITY_ERR_PROC] = {"identity_proc",
        "reading /proc failed unexpectedly"},
};

const char *
identity_err_code(enum identity_err e)
{
	if ((unsigned)e >= IDENTITY_ERR__COUNT)
		return "identity_unknown";
	return identity_errs[e].code;
}

const char *
identity_strerror(enum identity_err e)
{
	if ((unsigned)e >= IDENTITY_ERR__COUNT)
		return "unknown identity error";
	return identity_errs[e].msg;
}

void
identity_stats_get(const struct identity_ctx *ctx, struct identity_stats *out)
{
	*out = ctx->st;
	out->candidates = ctx->ncand;
	out->proc_seek = ctx->tgid_off >= 0;
}

void
identity_set_full_scan_interval(struct identity_ctx *ctx, long interval_ms)
{
	ctx->full_scan_interval_ms = interval_ms;
}

/* ------------------------------------------------------------------ */
/* Candidate cache                                                     */

static ssize_t
cand_find(const struct identity_ctx *ctx, pid_t pid)
{
	size_t lo = 0, hi = ctx->ncand;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ctx->cand[mid].pid == pid)
			return (ssize_t)mid;
		if (ctx->cand[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static void
cand_drop(struct identity_ctx *ctx, size_t i)
{
	if (ctx->cand[i].fd_dir >= 0) {
		close(ctx->cand[i].fd_dir);
		ctx->ncand_fds--;
	}
	memmove(&ctx->cand[i], &ctx->cand[i + 1],
	    (ctx->ncand - i - 1) * sizeof(ctx->cand[0]));
	ctx->ncand--;
}

/* Adds pid (unless known); fd_dir < 0 means "open /proc/PID/fd here". */
static bool
cand_add(struct identity_ctx *ctx, pid_t pid, int fd_dir)
{
	size_t lo = 0, hi = ctx->ncand;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ctx->cand[mid].pid == pid) {
			if (fd_dir >= 0)
				close(fd_dir);
			return true;
		}
		if (ctx->cand[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (ctx->ncand == ctx->cand_cap) {
		size_t ncap = ctx->cand_cap ? ctx->cand_cap * 2 : 64;
		struct cand *n = realloc(ctx->cand, ncap * sizeof(*n));

		if (n == NULL) {
			if (fd_dir >= 0)
				close(fd_dir);
			return false;
		}
		ctx->cand = n;
		ctx->cand_cap = ncap;
	}
	if (fd_dir < 0 && ctx->ncand_fds < IDENTITY_CAND_FD_MAX) {
		char p[32];

		pid_path(p, sizeof(p), pid, "/fd");
		/* EACCES leaves -1: the scan retries and reports it. */
		fd_dir =
		    openat(ctx->proc_fd, p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd_dir >= 0)
		ctx->ncand_fds++;
	memmove(&ctx->cand[lo + 1], &ctx->cand[lo],
	    (ctx->ncand - lo) * sizeof(ctx->cand[0]));
	ctx->cand[lo].pid = pid;
	ctx->cand[lo].fd_dir = fd_dir;
	ctx->cand[lo].last_fd = -1;
	ctx->ncand++;
	return true;
}

static void
probation_add(struct identity_ctx *ctx, pid_t pid, uint64_t age_ms)
{
	char p[24];
	int d;

	if (ctx->nprob == IDENTITY_PROBATION_MAX ||
	    age_ms >= IDENTITY_PROBATION_MS)
		return;
	for (size_t i = 0; i < ctx->nprob; i++)
		if (ctx->prob[i].pid == pid)
			return;
	pid_path(p, sizeof(p), pid, "");
	d = openat(ctx->proc_fd, p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (d < 0)
		return;
	ctx->prob[ctx->nprob].pid = pid;
	ctx->prob[ctx->nprob].pid_dir = d;
	ctx->prob[ctx->nprob].until_ms =
	    mono_ms() + IDENTITY_PROBATION_MS - age_ms;
	ctx->nprob++;
}

static void
probation_drop(struct identity_ctx *ctx, size_t i)
{
	close(ctx->prob[i].pid_dir);
	ctx->prob[i] = ctx->prob[--ctx->nprob];
}

static bool
ns_match(const struct identity_ctx *ctx, const struct stat *st)
{
	return (uint64_t)st->st_dev == ctx->ns_dev &&
	    (uint64_t)st->st_ino == ctx->ns_ino;
}

/* Re-checks young outsiders; returns how many joined the namespace. */
static size_t
probation_recheck(struct identity_ctx *ctx)
{
	uint64_t now = mono_ms();
	size_t promoted = 0;

	for (size_t i = 0; i < ctx->nprob;) {
		struct probation *pr = &ctx->prob[i];
		struct stat st;

		if (fstatat(pr->pid_dir, "ns/net", &st, 0) == 0 &&
		    ns_match(ctx, &st)) {
			int fdd = openat(pr->pid_dir, "fd",
			    O_RDONLY | O_DIRECTORY | O_CLOEXEC);

			if (cand_add(ctx, pr->pid, fdd))
				promoted++;
			probation_drop(ctx, i);
		} else if (errno == ENOENT || errno == ESRCH ||
		    now >= pr->until_ms) {
			probation_drop(ctx, i);
		} else {
			i++;
		}
	}
	return promoted;
}

/*
 * Decides whether a process we have not seen belongs to the sandbox: its
 * network namespace is the sandbox's, or its parent is a candidate (a child
 * that unshared its way out of the namespace keeps the sockets it
 * inherited). A namespace we may not read is not the sandbox's: egressd
 * runs as root and the sandbox is launched by egressd's operator, so such
 * processes are more privileged than us (a container's init, an LSM-shielded
 * daemon); making them candidates would fail every lookup. They are counted
 * in stats.unclassified, and a whole-host scan that finds nothing but them
 * still fails closed (UNREADABLE).
 */
static void
classify_new(struct identity_ctx *ctx, pid_t pid)
{
	char p[40];
	struct stat st;
	pid_t ppid;
	uint64_t start;
	ssize_t n;

	ctx->st.refresh_pids++;
	pid_path(p, sizeof(p), pid, "/ns/net");
	if (fstatat(ctx->proc_fd, p, &st, 0) != 0) {
		if (errno == EACCES || errno == EPERM)
			ctx->st.unclassified++;
		return;
	}
	if (ns_match(ctx, &st)) {
		cand_add(ctx, pid, -1);
		return;
	}
	pid_path(p, sizeof(p), pid, "/stat");
	n = read_small_at(ctx->proc_fd, p, ctx->rbuf, sizeof(ctx->rbuf));
	if (n <= 0 || !identity_parse_stat(ctx->rbuf, (size_t)n, &ppid, &start))
		return;
	if (ppid > 0 && cand_find(ctx, ppid) >= 0) {
		cand_add(ctx, pid, -1);
		return;
	}
	struct timespec ts;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	uint64_t now_ticks = (uint64_t)ts.tv_sec * (uint64_t)ctx->clk_tck +
	    (uint64_t)ts.tv_nsec / (1000000000u / (uint64_t)ctx->clk_tck);
	if (now_ticks >= start)
		probation_add(ctx, pid,
		    (now_ticks - start) * 1000u / (uint64_t)ctx->clk_tck);
}

/* "processes N" from /proc/stat: tasks created since boot. */
static bool
read_forks(struct identity_ctx *ctx, uint64_t *forks)
{
	ssize_t n =
	    pread_small(ctx->stat_fd, ctx->statbuf, sizeof(ctx->statbuf));
	const char *p;

	if (n <= 0)
		return false;
	p = memmem(ctx->statbuf, (size_t)n, "\nprocesses ", 11);
	if (p == NULL)
		return false;
	p += 11;
	return parse_u64(&p, ctx->statbuf + n, forks);
}

/*
 * /proc/loadavg ends with "RUNNING/TASKS LAST_PID": the number of tasks and
 * the pid most recently allocated.
 */
static bool
read_last_pid(struct identity_ctx *ctx, pid_t *last)
{
	ssize_t n = pread_small(ctx->loadavg_fd, ctx->rbuf, 128);
	const char *p, *q;
	uint64_t v, tasks;

	if (n <= 0)
		return false;
	while (n > 0 && (ctx->rbuf[n - 1] == '\n' || ctx->rbuf[n - 1] == ' '))
		n--;
	p = ctx->rbuf + n;
	while (p > ctx->rbuf && p[-1] >= '0' && p[-1] <= '9')
		p--;
	q = p;
	if (!parse_u64(&q, ctx->rbuf + n, &v) || v > INT32_MAX)
		return false;
	*last = (pid_t)v;
	/* "... R/T LAST": T ends right before the space. */
	q = p - 1;
	while (q > ctx->rbuf && q[-1] >= '0' && q[-1] <= '9')
		q--;
	if (parse_u64(&q, ctx->rbuf + n, &tasks))
		ctx->nr_tasks = tasks;
	return true;
}

static int scan_fd_dir(
    struct identity_ctx *ctx, int fd_dir, int *fdnum, int *last_fd);
static bool found_add(struct identity_ctx *ctx, pid_t pid, int fdnum);

enum list_act { LIST_CLASSIFY, LIST_CALIBRATE, LIST_HOST_SCAN };

static bool
host_scan_one(struct identity_ctx *ctx, pid_t pid)
{
	char p[32];
	int fdd, fdnum = -1, r;

	pid_path(p, sizeof(p), pid, "/fd");
	fdd = openat(ctx->proc_fd, p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fdd < 0) {
		r = errno == ENOENT || errno == ESRCH ? -ENOENT : -EACCES;
	} else {
		r = scan_fd_dir(ctx, fdd, &fdnum, NULL);
		close(fdd);
	}
	if (r == 1)
		return found_add(ctx, pid, fdnum);
	if (r == -EACCES && ctx->unreadable_pid == 0) {
		ctx->unreadable_pid = pid;
		ctx->unreadable_errno = EACCES;
	}
	return true;
}

/*
 * Walks /proc's process entries with pid in [lo, hi], ascending. Once the
 * readdir position of pids is known (proc_pid_readdir() puts pid P at
 * P + 258), it seeks straight to lo: listing the pids created since the last
 * refresh costs microseconds, not one entry per host process. LIST_CALIBRATE
 * (a complete listing) learns that offset from d_off, which is the next
 * entry's position, and classifies every unknown pid.
 */
static bool
proc_list(struct identity_ctx *ctx, pid_t lo, pid_t hi, enum list_act act)
{
	long off_seen = -1;
	bool consistent = true;
	ssize_t n;

	if (act == LIST_CLASSIFY && ctx->tgid_off >= 0)
		n = (ssize_t)lseek(ctx->proc_fd, ctx->tgid_off + lo, SEEK_SET);
	else
		n = (ssize_t)lseek(ctx->proc_fd, 0, SEEK_SET);
	if (n < 0)
		return false;
	for (;;) {
		long prev_off = -1;

		n = getdents64(
		    ctx->proc_fd, ctx->dents_proc, sizeof(ctx->dents_proc));
		if (n < 0)
			return false;
		if (n == 0)
			break;
		for (ssize_t o = 0; o < n;) {
			struct dirent64 *d =
			    (struct dirent64 *)(void *)(ctx->dents_proc + o);
			long pid;

			o += d->d_reclen;
			if (!parse_uint_name(d->d_name, INT32_MAX, &pid)) {
				prev_off = -1;
				continue;
			}
			/* Only pairs inside one getdents call: across calls
			 * the next entry may have exited meanwhile. */
			if (act == LIST_CALIBRATE && prev_off >= 0) {
				if (off_seen < 0)
					off_seen = prev_off - pid;
				else if (off_seen != prev_off - pid)
					consistent = false;
			}
			prev_off = (long)d->d_off;
			if (pid < lo)
				continue;
			if (pid > hi)
				goto out;
			if (cand_find(ctx, (pid_t)pid) >= 0)
				continue;
			if (act == LIST_HOST_SCAN) {
				if (!host_scan_one(ctx, (pid_t)pid))
					return false;
			} else {
				classify_new(ctx, (pid_t)pid);
			}
		}
	}
out:
	if (act == LIST_CALIBRATE)
		ctx->tgid_off = consistent && off_seen > 0 ? off_seen : -1;
	return true;
}

/* Checks that seeking to our own pid lists our own pid first. */
static void
check_seek(struct identity_ctx *ctx)
{
	pid_t self = getpid();
	struct dirent64 *d = (struct dirent64 *)(void *)ctx->dents_proc;
	long pid;

	if (ctx->tgid_off < 0)
		return;
	if (lseek(ctx->proc_fd, ctx->tgid_off + self, SEEK_SET) < 0 ||
	    getdents64(
	        ctx->proc_fd, ctx->dents_proc, sizeof(ctx->dents_proc)) <= 0 ||
	    !parse_uint_name(d->d_name, INT32_MAX, &pid) || pid != self)
		ctx->tgid_off = -1;
}

/*
 * Every process on the host that is not a candidate yet is classified.
 * Candidates that died are dropped by the next scan (ENOENT).
 */
static bool
refresh_full(struct identity_ctx *ctx)
{
	char buf[32];
	uint64_t forks;
	pid_t last;
	ssize_t n;
	long v;

	ctx->st.full_refreshes++;
	n = read_small_at(ctx->proc_fd, "sys/kernel/pid_max", buf, sizeof(buf));
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	if (n > 0 && parse_uint_name(buf, INT32_MAX, &v) && v > 300)
		ctx->pid_max = (pid_t)v;
	if (!read_forks(ctx, &forks) || !read_last_pid(ctx, &last))
		return false;
	if (!proc_list(ctx, 1, INT32_MAX, LIST_CALIBRATE))
		return false;
	check_seek(ctx);
	ctx->forks = forks;
	ctx->forks_ms = mono_ms();
	ctx->last_pid = last;
	return true;
}

/* Allocations that bring the pid cursor back where it was, at least. */
static uint64_t
pid_cycle(const struct identity_ctx *ctx)
{
	uint64_t free_pids = (uint64_t)ctx->pid_max > 300 + ctx->nr_tasks ?
	    (uint64_t)ctx->pid_max - 300 - ctx->nr_tasks :
	    1;

	return free_pids / 2 > 0 ? free_pids / 2 : 1;
}

/*
 * New pids only. The last allocated pid (/proc/loadavg) bounds the pids
 * created since the last refresh: (previous, last], wrapping at pid_max.
 * That reasoning holds only while the pid cursor cannot have gone round
 * a whole cycle; no host forks more than 4 million tasks a second, so when
 * the cycle could have been completed since the kernel fork counter was
 * last read, it is read again (/proc/stat, costly on large hosts, hence not
 * on every lookup) and a possible full cycle means a full refresh.
 */
static bool
refresh_incremental(struct identity_ctx *ctx)
{
	uint64_t now, forks;
	pid_t last;
	bool ok;

	if (!read_last_pid(ctx, &last))
		return false;
	now = mono_ms();
	if (now - ctx->forks_ms >= pid_cycle(ctx) / 4000) {
		if (!read_forks(ctx, &forks))
			return false;
		if (forks - ctx->forks >= pid_cycle(ctx) ||
		    (forks != ctx->forks && last == ctx->last_pid))
			return refresh_full(ctx);
		ctx->forks = forks;
		ctx->forks_ms = now;
	}
	if (last == ctx->last_pid)
		return true;
	ctx->st.refreshes++;
	if (last > ctx->last_pid) {
		ok = proc_list(ctx, ctx->last_pid + 1, last, LIST_CLASSIFY);
	} else {
		ok = proc_list(
		         ctx, ctx->last_pid + 1, INT32_MAX, LIST_CLASSIFY) &&
		    proc_list(ctx, 1, last, LIST_CLASSIFY);
	}
	if (!ok)
		return false;
	ctx->last_pid = last;
	return true;
}

bool
identity_refresh(struct identity_ctx *ctx, bool full)
{
	return full ? refresh_full(ctx) : refresh_incremental(ctx);
}

/* ------------------------------------------------------------------ */
/* fd scan                                                             */

/* readlink of one fd: 1 when it is ctx->want, 0 when not (or closed
 * meanwhile), -EACCES when it cannot be read. */
static int
fd_is_want(struct identity_ctx *ctx, int fd_dir, const char *name)
{
	char link[64];
	ssize_t l = readlinkat(fd_dir, name, link, sizeof(link));

	if (l < 0)
		return errno == ENOENT ? 0 : -EACCES;
	return (size_t)l == ctx->wantlen &&
	    memcmp(link, ctx->want, ctx->wantlen) == 0;
}

/*
 * Looks for ctx->want among the fds of one process. Returns 1 (fdnum set),
 * 0, -ENOENT (process gone) or -EACCES (cannot tell, for whatever reason:
 * the caller fails closed).
 *
 * A process holding many sockets usually gets its newest one (the one being
 * looked up) next to where its previous one was, or at the top. So the fd
 * after *last_fd and *last_fd itself are tried first (no directory
 * listing at all, which costs per open fd), then the fd numbers are listed
 * and read from the highest down (past IDENTITY_FDS_ORDERED fds, in
 * directory order). Any fd naming the socket proves this process holds it;
 * *last_fd (NULL: no hint) is where it was found.
 */
static int
scan_fd_dir(struct identity_ctx *ctx, int fd_dir, int *fdnum, int *last_fd)
{
	size_t nfds = 0;
	bool ordered = true;
	int r;

	if (last_fd && *last_fd >= 0) {
		for (int k = 1; k >= 0; k--) {
			char name[16];
			int v = *last_fd + k;

			snprintf(name, sizeof(name), "%d", v);
			if ((r = fd_is_want(ctx, fd_dir, name)) == 1) {
				*fdnum = *last_fd = v;
				return 1;
			}
			if (r < 0)
				break; /* the listing below tells why */
		}
	}
	if (lseek(fd_dir, 0, SEEK_SET) < 0)
		return -EACCES;
	for (;;) {
		ssize_t n =
		    getdents64(fd_dir, ctx->dents_fd, sizeof(ctx->dents_fd));

		if (n < 0)
			return errno == ENOENT || errno == ESRCH ? -ENOENT :
			                                           -EACCES;
		if (n == 0)
			break;
		for (ssize_t o = 0; o < n;) {
			struct dirent64 *d =
			    (struct dirent64 *)(void *)(ctx->dents_fd + o);
			long v;

			o += d->d_reclen;
			if (d->d_name[0] == '.' ||
			    !parse_uint_name(d->d_name, INT32_MAX, &v))
				continue;
			if (ordered && nfds < IDENTITY_FDS_ORDERED) {
				ctx->fdnums[nfds++] = (int)v;
				continue;
			}
			/* too many to order: the rest in directory order */
			ordered = false;
			if ((r = fd_is_want(ctx, fd_dir, d->d_name)) != 0) {
				if (r == 1 && last_fd)
					*last_fd = (int)v;
				if (r == 1)
					*fdnum = (int)v;
				return r;
			}
		}
	}
	while (nfds > 0) {
		char name[16];
		int v = ctx->fdnums[--nfds];

		snprintf(name, sizeof(name), "%d", v);
		if ((r = fd_is_want(ctx, fd_dir, name)) != 0) {
			if (r == 1 && last_fd)
				*last_fd = v;
			if (r == 1)
				*fdnum = v;
			return r;
		}
	}
	return 0;
}

static bool
found_add(struct identity_ctx *ctx, pid_t pid, int fdnum)
{
	for (size_t i = 0; i < ctx->nfound; i++)
		if (ctx->found[i].pid == pid)
			return true;
	if (ctx->nfound == ctx->found_cap) {
		size_t ncap = ctx->found_cap ? ctx->found_cap * 2 : 16;
		struct found *n = realloc(ctx->found, ncap * sizeof(*n));

		if (n == NULL)
			return false;
		ctx->found = n;
		ctx->found_cap = ncap;
	}
	ctx->found[ctx->nfound].pid = pid;
	ctx->found[ctx->nfound].fdnum = fdnum;
	ctx->nfound++;
	return true;
}

static int mru_find(const struct identity_ctx *ctx, pid_t pid);
static void mru_evict(struct identity_ctx *ctx, int i);

/* Scans every candidate; drops the dead. False only on ENOMEM. */
static bool
scan_candidates(struct identity_ctx *ctx)
{
	pid_t reborn[16];
	size_t nreborn = 0;

	for (size_t i = 0; i < ctx->ncand;) {
		struct cand *c = &ctx->cand[i];
		int fdnum = -1, r, fdd = c->fd_dir;

		if (fdd < 0) {
			char p[32];

			pid_path(p, sizeof(p), c->pid, "/fd");
			fdd = openat(ctx->proc_fd, p,
			    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			r = fdd < 0 ?
			    (errno == ENOENT || errno == ESRCH ? -ENOENT :
			                                         -EACCES) :
			    scan_fd_dir(ctx, fdd, &fdnum, &c->last_fd);
			if (fdd >= 0)
				close(fdd);
		} else {
			r = scan_fd_dir(ctx, fdd, &fdnum, &c->last_fd);
		}
		if (r == 1 && !found_add(ctx, c->pid, fdnum))
			return false;
		if (r == -EACCES && ctx->unreadable_pid == 0) {
			ctx->unreadable_pid = c->pid;
			ctx->unreadable_errno = EACCES;
		}
		if (r == -ENOENT) {
			/* Gone; if the pid already names a new process,
			 * classify that one below. */
			int mi = mru_find(ctx, c->pid);

			if (mi >= 0)
				mru_evict(ctx, mi);
			if (nreborn < 16)
				reborn[nreborn++] = c->pid;
			cand_drop(ctx, i);
			continue;
		}
		i++;
	}
	for (size_t i = 0; i < nreborn; i++) {
		char p[24];
		struct stat st;
		ssize_t ci;
		int fdnum = -1;

		pid_path(p, sizeof(p), reborn[i], "");
		if (fstatat(ctx->proc_fd, p, &st, 0) != 0)
			continue;
		classify_new(ctx, reborn[i]);
		ci = cand_find(ctx, reborn[i]);
		if (ci >= 0 && ctx->cand[ci].fd_dir >= 0 &&
		    scan_fd_dir(ctx, ctx->cand[ci].fd_dir, &fdnum,
		        &ctx->cand[ci].last_fd) == 1 &&
		    !found_add(ctx, reborn[i], fdnum))
			return false;
	}
	return true;
}

static int
found_cmp(const void *a, const void *b)
{
	const struct found *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* ------------------------------------------------------------------ */
/* Reading one process                                                 */

/*
 * dir/exe into out (PATH_MAX). The kernel appends " (deleted)" when the
 * path no longer names the file; a file may also be literally called that,
 * so the suffix only counts when the name does not lead to the running
 * file. Returns 0 or -errno.
 */
static int
read_exe(int dir, const char *name, char *out, bool *deleted,
    struct identity_file *file)
{
	static const char suffix[] = " (deleted)";
	const size_t sl = sizeof(suffix) - 1;
	struct stat st, ps;
	ssize_t n = readlinkat(dir, name, out, PATH_MAX);
	bool have_st = false;

	if (n < 0)
		return -errno;
	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	out[n] = '\0';
	*deleted = false;
	if (file != NULL) {
		if (fstatat(dir, name, &st, 0) != 0)
			return -errno;
		have_st = true;
		file->dev = (uint64_t)st.st_dev;
		file->ino = (uint64_t)st.st_ino;
		file->size = (int64_t)st.st_size;
		file->mtime = st.st_mtim;
		file->ctime = st.st_ctim;
		file->nlink = (uint32_t)st.st_nlink;
	}
	if ((size_t)n > sl && memcmp(out + n - sl, suffix, sl) == 0) {
		if (!have_st && fstatat(dir, name, &st, 0) != 0)
			return -errno;
		if (stat(out, &ps) == 0 && ps.st_dev == st.st_dev &&
		    ps.st_ino == st.st_ino)
			return 0;
		*deleted = true;
		out[n - sl] = '\0';
	}
	return 0;
}

/* Maps a read errno to the lookup error: gone is a race, else unreadable. */
static enum identity_err
proc_errno(int e)
{
	switch (e) {
	case ENOENT:
	case ESRCH:
		return IDENTITY_ERR_PID_REUSED;
	case EACCES:
	case EPERM:
		return IDENTITY_ERR_UNREADABLE;
	default:
		return IDENTITY_ERR_PROC;
	}
}

static bool
join_path(
    char *out, size_t outlen, const char *dir, const char *rel, size_t rellen)
{
	size_t dl = strlen(dir);

	while (rellen >= 2 && rel[0] == '.' && rel[1] == '/') {
		rel += 2;
		rellen -= 2;
		while (rellen > 0 && rel[0] == '/') {
			rel++;
			rellen--;
		}
	}
	if (dl > 0 && dir[dl - 1] == '/')
		dl--;
	if (dl + 1 + rellen + 1 > outlen)
		return false;
	memcpy(out, dir, dl);
	out[dl] = '/';
	memcpy(out + dl + 1, rel, rellen);
	out[dl + 1 + rellen] = '\0';
	return true;
}

/* path (our view) below root (our view) -> the process's view, or NULL. */
static const char *
strip_root(const char *path, const char *root)
{
	size_t rl = strlen(root);

	if (strcmp(root, "/") == 0)
		return path;
	if (strncmp(path, root, rl) != 0)
		return NULL;
	if (path[rl] == '\0')
		return "/";
	return path[rl] == '/' ? path + rl : NULL;
}

/*
 * argv[0] as a path, resolved inside the process's root (and from its cwd
 * when relative): recorded when it reaches the running file under another
 * name (symlink, hardlink); flagged when it reaches another file or none.
 * No PATH search: a bare name says nothing about where it came from.
 */
static void
resolve_invoked_as(struct identity_ctx *ctx, struct pfiles *f,
    const char *argv0, size_t len, struct identity *out)
{
	int pid_dir = f->pid_dir;
	char *root = ctx->path2, *path = ctx->path;
	const char *exe_pv, *cwd_pv;
	struct open_how how = {
	    .flags = O_PATH | O_CLOEXEC,
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	ssize_t n;
	int rootfd, fd;
	bool ours;

	if (len == 0 || len >= PATH_MAX || memchr(argv0, '/', len) == NULL)
		return;
	/* The usual sandbox shares our root and mount namespace: then our
	 * own path resolution is the process's. Checked once per process
	 * while it stays a recent caller (a hint may go stale if it chroots
	 * later; exe never does). */
	if (f->same_root < 0)
		f->same_root = fstatat(pid_dir, "root", &st, 0) == 0 &&
		    (uint64_t)st.st_dev == ctx->root_dev &&
		    (uint64_t)st.st_ino == ctx->root_ino &&
		    fstatat(pid_dir, "ns/mnt", &st, 0) == 0 &&
		    (uint64_t)st.st_dev == ctx->mnt_dev &&
		    (uint64_t)st.st_ino == ctx->mnt_ino;
	ours = f->same_root == 1;
	if (ours) {
		root[0] = '/';
		root[1] = '\0';
	} else {
		n = readlinkat(pid_dir, "root", root, PATH_MAX);
		if (n <= 0 || n >= PATH_MAX)
			return;
		root[n] = '\0';
	}
	if (argv0[0] == '/') {
		memcpy(path, argv0, len);
		path[len] = '\0';
	} else {
		n = readlinkat(pid_dir, "cwd", ctx->exe2, PATH_MAX);
		if (n <= 0 || n >= PATH_MAX)
			return;
		ctx->exe2[n] = '\0';
		cwd_pv = strip_root(ctx->exe2, root);
		if (cwd_pv == NULL ||
		    !join_path(path, PATH_MAX, cwd_pv, argv0, len))
			return;
	}
	if (ours) {
		if (stat(path, &st) != 0) {
			out->argv0_mismatch = true;
			return;
		}
	} else {
		rootfd =
		    openat(pid_dir, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (rootfd < 0)
			return;
		fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
		close(rootfd);
		if (fd < 0) {
			if (errno != ENOSYS)
				out->argv0_mismatch = true;
			return;
		}
		n = fstat(fd, &st);
		close(fd);
		if (n != 0)
			return;
	}
	if ((uint64_t)st.st_dev != out->exe_file.dev ||
	    (uint64_t)st.st_ino != out->exe_file.ino) {
		out->argv0_mismatch = true;
		return;
	}
	exe_pv = strip_root(out->exe, root);
	if (exe_pv == NULL || strcmp(exe_pv, path) != 0)
		snprintf(out->invoked_as, sizeof(out->invoked_as), "%s", path);
}

static void
pfiles_close(struct pfiles *f)
{
	close_fd(&f->pid_dir);
	close_fd(&f->stat_fd);
	close_fd(&f->status_fd);
	close_fd(&f->cmdline_fd);
	close_fd(&f->pidfd);
}

static int
mru_find(const struct identity_ctx *ctx, pid_t pid)
{
	for (int i = 0; i < IDENTITY_MRU_LEN; i++)
		if (ctx->mru[i].pid == pid && pid != 0)
			return i;
	return -1;
}

static void
mru_evict(struct identity_ctx *ctx, int i)
{
	struct mru *m = &ctx->mru[i];

	close_fd(&m->pid_dir);
	close_fd(&m->stat_fd);
	close_fd(&m->status_fd);
	close_fd(&m->cmdline_fd);
	close_fd(&m->pidfd);
	m->pid = 0;
	m->used = 0;
}

/* Takes ownership of f. */
static void
mru_store(struct identity_ctx *ctx, pid_t pid, struct pfiles *f)
{
	int victim = 0;

	for (int i = 0; i < IDENTITY_MRU_LEN; i++) {
		if (ctx->mru[i].pid == 0) {
			victim = i;
			break;
		}
		if (ctx->mru[i].used < ctx->mru[victim].used)
			victim = i;
	}
	mru_evict(ctx, victim);
	ctx->mru[victim] = (struct mru){
	    .pid = pid,
	    .pid_dir = f->pid_dir,
	    .stat_fd = f->stat_fd,
	    .status_fd = f->status_fd,
	    .cmdline_fd = f->cmdline_fd,
	    .pidfd = f->pidfd,
	    .same_root = f->same_root,
	    .used = ++ctx->mru_clock,
	};
	*f = (struct pfiles){-1, -1, -1, -1, -1, -1};
}

static int
open_pfiles(struct identity_ctx *ctx, pid_t pid, struct pfiles *f)
{
	char p[24];

	*f = (struct pfiles){-1, -1, -1, -1, -1, -1};
	pid_path(p, sizeof(p), pid, "");
	/* Everything below goes through this fd: pinned to the process. */
	f->pid_dir = openat(ctx->proc_fd, p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (f->pid_dir < 0)
		return -errno;
	if (ctx->have_pidfd) {
		f->pidfd = sys_pidfd_open(pid);
		if (f->pidfd < 0) {
			int e = errno;

			pfiles_close(f);
			return -e;
		}
	}
	f->stat_fd = openat(f->pid_dir, "stat", O_RDONLY | O_CLOEXEC);
	f->status_fd = openat(f->pid_dir, "status", O_RDONLY | O_CLOEXEC);
	f->cmdline_fd = openat(f->pid_dir, "cmdline", O_RDONLY | O_CLOEXEC);
	if (f->stat_fd < 0 || f->status_fd < 0 || f->cmdline_fd < 0) {
		int e = errno;

		pfiles_close(f);
		return -e;
	}
	return 0;
}

static void
identity_clear(struct identity *out)
{
	out->pid = out->ppid = 0;
	out->uid = out->euid = (uid_t)-1;
	out->gid = out->egid = (gid_t)-1;
	out->start_time = 0;
	out->sock_ino = 0;
	out->sock_uid = (uid_t)-1;
	out->nholders = 0;
	out->deleted = out->argv0_mismatch = false;
	out->cmdline_truncated = out->ancestors_truncated = false;
	out->holders_truncated = false;
	memset(&out->exe_file, 0, sizeof(out->exe_file));
	out->exe[0] = out->invoked_as[0] = out->cmdline[0] = '\0';
	out->nancestors = 0;
	out->ancestor_buf[0] = '\0';
	out->nlisted = 0;
	out->holder_buf[0] = '\0';
	out->err_pid = 0;
	out->err_errno = 0;
}

/*
 * After the reads: is f still the process that was read, and does it still
 * hold the socket (fd fdnum, if >= 0)? Lookups through the pinned pid_dir
 * fail once that process is gone, so the fd re-check answers both; the
 * pidfd then confirms it has not exited. Without pidfd (Linux < 5.3) and
 * without an fd, the start time through the pinned stat fd decides.
 */
static bool
still_same(
    struct identity_ctx *ctx, struct pfiles *f, uint64_t start, int fdnum)
{
	if (fdnum >= 0) {
		char p[24], link[64];
		ssize_t l;

		snprintf(p, sizeof(p), "fd/%d", fdnum);
		l = readlinkat(f->pid_dir, p, link, sizeof(link));
		if (l < 0 || (size_t)l != ctx->wantlen ||
		    memcmp(link, ctx->want, ctx->wantlen) != 0)
			return false;
	}
	if (f->pidfd >= 0)
		return !pidfd_exited(f->pidfd);
	if (fdnum >= 0 || f->stat_fd < 0)
		return true;

	ssize_t n = pread_small(f->stat_fd, ctx->rbuf, sizeof(ctx->rbuf));
	pid_t pp;
	uint64_t st2;

	return n > 0 && identity_parse_stat(ctx->rbuf, (size_t)n, &pp, &st2) &&
	    st2 == start;
}

/*
 * The reporting holder: everything of struct identity but the holders and
 * ancestors. fdnum < 0: no socket to re-check (identity_from_pid).
 */
static enum identity_err
fill_process_once(struct identity_ctx *ctx, pid_t pid, int fdnum,
    struct identity *out, bool use_mru, bool *was_mru)
{
	struct pfiles f;
	int mi = use_mru ? mru_find(ctx, pid) : -1;
	ssize_t n;
	int r;
	size_t a0;

	*was_mru = mi >= 0;
	if (mi >= 0) {
		struct mru *m = &ctx->mru[mi];

		f = (struct pfiles){m->pid_dir, m->stat_fd, m->status_fd,
		    m->cmdline_fd, m->pidfd, m->same_root};
		m->pid_dir = m->stat_fd = m->status_fd = -1;
		m->cmdline_fd = m->pidfd = -1;
		m->pid = 0;
		m->used = 0;
		/* If that process is gone, the pinned fds fail below and the
		 * lookup is retried afresh. */
	} else {
		r = open_pfiles(ctx, pid, &f);
		if (r < 0) {
			out->err_pid = pid;
			out->err_errno = -r;
			return proc_errno(-r);
		}
	}

	out->pid = pid;
	n = pread_small(f.stat_fd, ctx->rbuf, sizeof(ctx->rbuf));
	if (n < 0) {
		r = (int)n;
		goto fail_errno;
	}
	if (!identity_parse_stat(
	        ctx->rbuf, (size_t)n, &out->ppid, &out->start_time)) {
		r = -EINVAL;
		goto fail_errno;
	}
	r = read_exe(f.pid_dir, "exe", out->exe, &out->deleted, &out->exe_file);
	if (r < 0)
		goto fail_errno;
	n = pread_small(f.status_fd, ctx->rbuf, sizeof(ctx->rbuf));
	if (n < 0) {
		r = (int)n;
		goto fail_errno;
	}
	if (!identity_parse_status(ctx->rbuf, (size_t)n, &out->uid, &out->euid,
	        &out->gid, &out->egid)) {
		r = -EINVAL;
		goto fail_errno;
	}
	n = pread(f.cmdline_fd, ctx->raw_cmdline, sizeof(ctx->raw_cmdline), 0);
	if (n < 0) {
		r = -errno;
		goto fail_errno;
	}
	if (!identity_format_cmdline(ctx->raw_cmdline,
	        (size_t)n < IDENTITY_CMDLINE_MAX ? (size_t)n :
	                                           IDENTITY_CMDLINE_MAX,
	        out->cmdline, sizeof(out->cmdline)) ||
	    (size_t)n > IDENTITY_CMDLINE_MAX)
		out->cmdline_truncated = true;
	a0 = strnlen(ctx->raw_cmdline, (size_t)n);
	if (a0 < (size_t)n)
		resolve_invoked_as(ctx, &f, ctx->raw_cmdline, a0, out);

	/* An execve() between the first exe read and now would pair the old
	 * exe with the new cmdline and credentials. */
	bool del2;
	r = read_exe(f.pid_dir, "exe", ctx->exe2, &del2, NULL);
	if (r < 0)
		goto fail_errno;
	if (strcmp(ctx->exe2, out->exe) != 0 || del2 != out->deleted)
		goto reused;
	if (!still_same(ctx, &f, out->start_time, fdnum))
		goto reused;
	mru_store(ctx, pid, &f);
	return IDENTITY_OK;

fail_errno:
	pfiles_close(&f);
	if (*was_mru && (r == -ESRCH || r == -ENOENT))
		return IDENTITY_ERR__COUNT;
	out->err_pid = pid;
	out->err_errno = -r;
	return r == -EINVAL ? IDENTITY_ERR_PROC : proc_errno(-r);
reused:
	pfiles_close(&f);
	if (*was_mru)
		return IDENTITY_ERR__COUNT;
	out->err_pid = pid;
	return IDENTITY_ERR_PID_REUSED;
}

static enum identity_err
fill_process(struct identity_ctx *ctx, pid_t pid, int fdnum,
    struct identity *out, bool *was_mru)
{
	enum identity_err e;

	e = fill_process_once(ctx, pid, fdnum, out, true, was_mru);
	if (e == IDENTITY_ERR__COUNT) {
		/* The cached files belonged to a process that is gone. */
		out->invoked_as[0] = '\0';
		out->argv0_mismatch = out->cmdline_truncated = false;
		e = fill_process_once(ctx, pid, fdnum, out, false, was_mru);
	}
	return e;
}

/* Appends s to a packed buffer; returns the offset or -1 when full. */
static int
pack(char *buf, size_t buflen, size_t *used, const char *s)
{
	size_t l = strlen(s) + 1;

	if (*used + l > buflen || *used > UINT16_MAX)
		return -1;
	memcpy(buf + *used, s, l);
	*used += l;
	return (int)(*used - l);
}

/*
 * Parent chain, for logs and for policy entries that opt into ancestor
 * matching: stops at pid 1, at the first process outside the sandbox, at a
 * parent younger than its child (pid reused) or after IDENTITY_ANCESTORS_MAX.
 */
static void
fill_ancestors(struct identity_ctx *ctx, struct identity *out)
{
	uint64_t child_start = out->start_time;
	pid_t p = out->ppid;
	size_t used = 0;

	while (p > 1 && cand_find(ctx, p) >= 0) {
		struct identity_ancestor *a;
		char pp[32];
		pid_t next, next2;
		uint64_t start, start2;
		ssize_t n;
		int sfd, off, r;
		bool deleted = false;

		if (out->nancestors == IDENTITY_ANCESTORS_MAX) {
			out->ancestors_truncated = true;
			return;
		}
		/* An open stat fd is pinned to the process: read again after
		 * the exe, it fails if the pid changed hands in between. */
		pid_path(pp, sizeof(pp), p, "/stat");
		sfd = openat(ctx->proc_fd, pp, O_RDONLY | O_CLOEXEC);
		if (sfd < 0)
			return;
		n = pread_small(sfd, ctx->rbuf, sizeof(ctx->rbuf));
		if (n <= 0 ||
		    !identity_parse_stat(ctx->rbuf, (size_t)n, &next, &start) ||
		    start > child_start) {
			close(sfd);
			return;
		}
		pid_path(pp, sizeof(pp), p, "/exe");
		r = read_exe(ctx->proc_fd, pp, ctx->exe2, &deleted, NULL);
		n = pread_small(sfd, ctx->rbuf, sizeof(ctx->rbuf));
		close(sfd);
		if (n <= 0 ||
		    !identity_parse_stat(
		        ctx->rbuf, (size_t)n, &next2, &start2) ||
		    start2 != start || r == -ENOENT || r == -ESRCH)
			return;
		if (r < 0)
			ctx->exe2[0] = '\0';
		off = pack(out->ancestor_buf, sizeof(out->ancestor_buf), &used,
		    ctx->exe2);
		if (off < 0) {
			out->ancestors_truncated = true;
			return;
		}
		a = &out->ancestors[out->nancestors++];
		a->pid = p;
		a->exe_off = (uint16_t)off;
		a->deleted = deleted;
		a->unreadable = r < 0;
		child_start = start;
		p = next;
	}
}

/*
 * The executable of another holder. PID_REUSED when it exited or let go of
 * the socket meanwhile (then it is no holder).
 */
static enum identity_err
holder_exe(struct identity_ctx *ctx, pid_t pid, int fdnum, char *exe,
    bool *deleted, struct identity_file *file)
{
	struct pfiles f = {-1, -1, -1, -1, -1, -1};
	char p[24];
	int r;

	pid_path(p, sizeof(p), pid, "");
	f.pid_dir = openat(ctx->proc_fd, p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (f.pid_dir < 0)
		return proc_errno(errno);
	if (ctx->have_pidfd)
		f.pidfd = sys_pidfd_open(pid);
	r = read_exe(f.pid_dir, "exe", exe, deleted, file);
	if (r == 0 && !still_same(ctx, &f, 0, fdnum))
		r = -ESRCH;
	pfiles_close(&f);
	return r < 0 ? proc_errno(-r) : IDENTITY_OK;
}

static bool
same_exe(const char *a, bool adel, const struct identity_file *af,
    const char *b, bool bdel, const struct identity_file *bf)
{
	return adel == bdel && af->dev == bf->dev && af->ino == bf->ino &&
	    strcmp(a, b) == 0;
}

/*
 * Turns ctx->found into out: the reporting holder in full, the others by
 * executable, grouped. Different executables -> AMBIGUOUS.
 */
static enum identity_err
resolve_holders(struct identity_ctx *ctx, struct identity *out)
{
	struct identity_file files[IDENTITY_HOLDERS_MAX], file;
	size_t primary = 0, used = 0;
	bool was_mru = false, differ = false;
	uint64_t best = 0;
	enum identity_err e;
	int off;

	qsort(ctx->found, ctx->nfound, sizeof(ctx->found[0]), found_cmp);
	/* The most recent caller among the holders, else the lowest pid. */
	for (size_t i = 0; i < ctx->nfound; i++) {
		int mi = mru_find(ctx, ctx->found[i].pid);

		if (mi >= 0 && ctx->mru[mi].used > best) {
			best = ctx->mru[mi].used;
			primary = i;
		}
	}
	e = fill_process(ctx, ctx->found[primary].pid,
	    ctx->found[primary].fdnum, out, &was_mru);
	if (e != IDENTITY_OK)
		return e;
	if (was_mru)
		ctx->st.mru_hits++;
	out->nholders = 1;
	off = pack(out->holder_buf, sizeof(out->holder_buf), &used, out->exe);
	if (off >= 0) {
		out->holders[0] = (struct identity_holder){.pid = out->pid,
		    .count = 1,
		    .exe_off = (uint16_t)off,
		    .deleted = out->deleted};
		files[0] = out->exe_file;
		out->nlisted = 1;
	} else {
		out->holders_truncated = true;
	}
	for (size_t i = 0; i < ctx->nfound; i++) {
		char *exe = ctx->path;
		bool deleted = false, listed = false;

		if (i == primary)
			continue;
		e = holder_exe(ctx, ctx->found[i].pid, ctx->found[i].fdnum, exe,
		    &deleted, &file);
		if (e == IDENTITY_ERR_PID_REUSED) {
			ctx->st.holders_vanished++;
			continue;
		}
		if (e != IDENTITY_OK) {
			out->err_pid = ctx->found[i].pid;
			return e;
		}
		out->nholders++;
		if (!same_exe(exe, deleted, &file, out->exe, out->deleted,
		        &out->exe_file))
			differ = true;
		for (unsigned h = 0; h < out->nlisted && !listed; h++) {
			struct identity_holder *hd = &out->holders[h];

			if (same_exe(exe, deleted, &file,
			        out->holder_buf + hd->exe_off, hd->deleted,
			        &files[h])) {
				hd->count++;
				listed = true;
			}
		}
		if (listed)
			continue;
		off = -1;
		if (out->nlisted < IDENTITY_HOLDERS_MAX)
			off = pack(out->holder_buf, sizeof(out->holder_buf),
			    &used, exe);
		if (off < 0) {
			out->holders_truncated = true;
			continue;
		}
		/* found[] is sorted: the first seen is the lowest pid. */
		files[out->nlisted] = file;
		out->holders[out->nlisted++] =
		    (struct identity_holder){.pid = ctx->found[i].pid,
		        .count = 1,
		        .exe_off = (uint16_t)off,
		        .deleted = deleted};
	}
	fill_ancestors(ctx, out);
	return differ ? IDENTITY_ERR_AMBIGUOUS : IDENTITY_OK;
}

/* ------------------------------------------------------------------ */
/* sock_diag                                                           */

struct tuple {
	int family;
	uint32_t src[4], dst[4]; /* network order */
	uint16_t sport, dport;   /* network order */
	uint32_t ifindex;
};

static bool
norm_addr(const struct sockaddr *sa, int *family, uint32_t addr[4],
    uint16_t *port, uint32_t *ifindex)
{
	memset(addr, 0, 16);
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)sa;

		*family = AF_INET;
		memcpy(addr, &s4->sin_addr, 4);
		*port = s4->sin_port;
		return true;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		*port = s6->sin6_port;
		/* A v4 client of a dual-stack listener shows up as
		 * ::ffff:a.b.c.d; its socket lives in the IPv4 tables. */
		if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
			*family = AF_INET;
			memcpy(addr, &s6->sin6_addr.s6_addr[12], 4);
			return true;
		}
		*family = AF_INET6;
		memcpy(addr, &s6->sin6_addr, 16);
		if (s6->sin6_scope_id != 0)
			*ifindex = s6->sin6_scope_id;
		return true;
	}
	return false;
}

/* An AF_INET6 socket connected to ::ffff:a.b.c.d answers an IPv4 request. */
static void
diag_addr(int family, const uint32_t in[4], int *fam_out, uint32_t out[4])
{
	static const uint8_t mapped[12] = {
	    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	memset(out, 0, 16);
	if (family == AF_INET6 && memcmp(in, mapped, 12) == 0) {
		*fam_out = AF_INET;
		out[0] = in[3];
	} else if (family == AF_INET) {
		*fam_out = AF_INET;
		out[0] = in[0];
	} else {
		*fam_out = family;
		memcpy(out, in, 16);
	}
}

static bool
diag_reply_matches(const struct inet_diag_msg *m, const struct tuple *t)
{
	uint32_t src[4], dst[4];
	int fs, fd;

	diag_addr(m->idiag_family, m->id.idiag_src, &fs, src);
	diag_addr(m->idiag_family, m->id.idiag_dst, &fd, dst);
	return fs == t->family && fd == t->family &&
	    m->id.idiag_sport == t->sport && m->id.idiag_dport == t->dport &&
	    memcmp(src, t->src, 16) == 0 && memcmp(dst, t->dst, 16) == 0;
}

/*
 * One SOCK_DIAG_BY_FAMILY request for the exact tuple, from the client
 * socket's side (src = client, dst = what it connected to), without
 * NLM_F_DUMP: the kernel answers from its hash tables (inet_diag_find_one).
 */
static enum identity_err
diag_lookup(
    struct identity_ctx *ctx, const struct tuple *t, struct identity *out)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req;
	unsigned seq;
	int fd = nl_socket_get_fd(ctx->nl), rc;

	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST;
	req.nlh.nlmsg_seq = seq = nl_socket_use_seq(ctx->nl);
	req.r.sdiag_family = (uint8_t)t->family;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_states = ~0u;
	req.r.id.idiag_sport = t->sport;
	req.r.id.idiag_dport = t->dport;
	memcpy(req.r.id.idiag_src, t->src, sizeof(t->src));
	memcpy(req.r.id.idiag_dst, t->dst, sizeof(t->dst));
	req.r.id.idiag_if = t->ifindex;
	req.r.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	req.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;

	rc = nl_sendto(ctx->nl, &req, sizeof(req));
	if (rc < 0) {
		out->err_errno = EIO;
		return IDENTITY_ERR_NETLINK;
	}
	/* sock_diag answers synchronously inside sendmsg(): the reply is
	 * already queued, never wait for it. Older replies (a previous
	 * lookup that failed half-way) are skipped by sequence number. */
	for (int tries = 0; tries < IDENTITY_NL_RECV_TRIES; tries++) {
		ssize_t n =
		    recv(fd, ctx->nlbuf, sizeof(ctx->nlbuf), MSG_DONTWAIT);
		struct nlmsghdr *h = (struct nlmsghdr *)(void *)ctx->nlbuf;
		int rem;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			out->err_errno = errno;
			return IDENTITY_ERR_NETLINK;
		}
		rem = (int)n;
		for (; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = nlmsg_data(h);

				if (nlmsg_datalen(h) < (int)sizeof(*e)) {
					out->err_errno = EPROTO;
					return IDENTITY_ERR_NETLINK;
				}
				if (e->error == -ENOENT)
					return IDENTITY_ERR_NO_SOCKET;
				out->err_errno = -e->error;
				return IDENTITY_ERR_NETLINK;
			}
			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
			    nlmsg_datalen(h) <
			        (int)sizeof(struct inet_diag_msg)) {
				out->err_errno = EPROTO;
				return IDENTITY_ERR_NETLINK;
			}
			const struct inet_diag_msg *m = nlmsg_data(h);

			/* The kernel matched the tuple; check that it is the
			 * one we asked for rather than trust it blindly. */
			if (!diag_reply_matches(m, t))
				return IDENTITY_ERR_NO_SOCKET;
			out->sock_uid = m->idiag_uid;
			out->sock_ino = m->idiag_inode;
			return IDENTITY_OK;
		}
	}
	out->err_errno = ETIMEDOUT;
	return IDENTITY_ERR_NETLINK;
}

/* ------------------------------------------------------------------ */
/* Public API                                                          */

static enum identity_err
finish(struct identity_ctx *ctx, enum identity_err e, uint64_t t0)
{
	uint64_t dt = mono_ns() - t0;

	if (e == IDENTITY_OK)
		ctx->st.ok++;
	else
		ctx->st.errors[e]++;
	ctx->st.lookup_ns_total += dt;
	if (dt > ctx->st.lookup_ns_max)
		ctx->st.lookup_ns_max = dt;
	return e;
}

static bool
full_scan_allowed(struct identity_ctx *ctx)
{
	uint64_t now = mono_ms();

	if (ctx->full_scan_interval_ms < 0)
		return false;
	if (ctx->full_scan_ever &&
	    now - ctx->last_full_scan_ms < (uint64_t)ctx->full_scan_interval_ms)
		return false;
	ctx->full_scan_ever = true;
	ctx->last_full_scan_ms = now;
	return true;
}

enum identity_err
identity_lookup(struct identity_ctx *ctx, const struct sockaddr *client,
    const struct sockaddr *local, struct identity *out)
{
	uint64_t t0 = mono_ns();
	struct tuple t = {0};
	enum identity_err e;
	int lfam;

	identity_clear(out);
	ctx->st.lookups++;
	if (client == NULL || local == NULL ||
	    !norm_addr(client, &t.family, t.src, &t.sport, &t.ifindex) ||
	    !norm_addr(local, &lfam, t.dst, &t.dport, &t.ifindex) ||
	    lfam != t.family)
		return finish(ctx, IDENTITY_ERR_INVALID, t0);
	e = diag_lookup(ctx, &t, out);
	if (e != IDENTITY_OK)
		return finish(ctx, e, t0);
	/* An orphaned socket (closed, or its process exited: FIN_WAIT,
	 * TIME_WAIT) has no inode any more. */
	if (out->sock_ino == 0)
		return finish(ctx, IDENTITY_ERR_NO_OWNER, t0);
	ctx->wantlen = (size_t)snprintf(ctx->want, sizeof(ctx->want),
	    "socket:[%llu]", (unsigned long long)out->sock_ino);

	ctx->nfound = 0;
	ctx->unreadable_pid = 0;
	if (!refresh_incremental(ctx) || !scan_candidates(ctx)) {
		out->err_errno = errno;
		return finish(ctx, IDENTITY_ERR_PROC, t0);
	}
	if (ctx->nfound > 0 && ctx->unreadable_pid == 0) {
		ctx->st.fast_hits++;
	} else if (ctx->nfound == 0 && ctx->unreadable_pid == 0) {
		/* Nobody we know: a process that setns()'d into the sandbox
		 * after we first saw it, one created this very moment, or an
		 * outsider given the socket. */
		probation_recheck(ctx);
		if (!refresh_incremental(ctx) || !scan_candidates(ctx)) {
			out->err_errno = errno;
			return finish(ctx, IDENTITY_ERR_PROC, t0);
		}
		if (ctx->nfound == 0 && ctx->unreadable_pid == 0) {
			if (!full_scan_allowed(ctx)) {
				ctx->st.full_scans_skipped++;
				return finish(ctx, IDENTITY_ERR_NO_OWNER, t0);
			}
			ctx->st.full_scans++;
			if (!proc_list(ctx, 1, INT32_MAX, LIST_HOST_SCAN)) {
				out->err_errno = errno;
				return finish(ctx, IDENTITY_ERR_PROC, t0);
			}
			/* Holders outside the namespace become candidates:
			 * the next lookup of their sockets stays cheap. */
			for (size_t i = 0; i < ctx->nfound; i++)
				cand_add(ctx, ctx->found[i].pid, -1);
			if (ctx->nfound > 0)
				ctx->unreadable_pid = 0;
		}
	}
	/* A process we cannot inspect may hold the socket too: fail closed
	 * even when readable holders were found. */
	if (ctx->unreadable_pid != 0) {
		out->err_pid = ctx->unreadable_pid;
		out->err_errno = ctx->unreadable_errno;
		return finish(ctx, IDENTITY_ERR_UNREADABLE, t0);
	}
	if (ctx->nfound == 0)
		return finish(ctx, IDENTITY_ERR_NO_OWNER, t0);
	return finish(ctx, resolve_holders(ctx, out), t0);
}

/* No such process, or a zombie (state Z or X after the last ')'). */
static bool
process_gone(struct identity_ctx *ctx, pid_t pid)
{
	char p[24];
	const char *rp;
	ssize_t n;

	pid_path(p, sizeof(p), pid, "/stat");
	n = read_small_at(ctx->proc_fd, p, ctx->rbuf, sizeof(ctx->rbuf));
	if (n < 0)
		return n == -ENOENT || n == -ESRCH;
	rp = memrchr(ctx->rbuf, ')', (size_t)n);
	return rp != NULL && ctx->rbuf + n - rp >= 3 &&
	    (rp[2] == 'Z' || rp[2] == 'X');
}

enum identity_err
identity_from_pid(struct identity_ctx *ctx, pid_t pid, struct identity *out)
{
	uint64_t t0 = mono_ns();
	enum identity_err e;
	bool was_mru;

	identity_clear(out);
	ctx->st.lookups++;
	if (pid <= 0)
		return finish(ctx, IDENTITY_ERR_INVALID, t0);
	ctx->wantlen = 0;
	e = fill_process(ctx, pid, -1, out, &was_mru);
	if (e == IDENTITY_ERR_PID_REUSED && process_gone(ctx, pid))
		e = IDENTITY_ERR_NO_OWNER; /* exited: a zombie or nothing */
	if (e == IDENTITY_OK) {
		out->nholders = 1;
		(void)refresh_incremental(ctx);
		fill_ancestors(ctx, out);
	}
	return finish(ctx, e, t0);
}

/* Pid of a pidfd, from /proc/self/fdinfo: -1 once the process exited. */
static bool
pidfd_pid(struct identity_ctx *ctx, int pidfd, pid_t *pid)
{
	char p[48];
	const char *s;
	long v;
	ssize_t n;

	snprintf(p, sizeof(p), "self/fdinfo/%d", pidfd);
	n = read_small_at(ctx->proc_fd, p, ctx->rbuf, sizeof(ctx->rbuf));
	if (n <= 0)
		return false;
	s = strstr(ctx->rbuf, "\nPid:\t");
	if (s == NULL)
		return false;
	s += 6;
	if (*s == '-') {
		*pid = -1;
		return true;
	}
	v = strtol(s, NULL, 10);
	if (v < 0 || v > INT32_MAX)
		return false;
	*pid = (pid_t)v;
	return true;
}

enum identity_err
identity_from_unix_peer(struct identity_ctx *ctx, int fd, struct identity *out)
{
	struct ucred cred;
	socklen_t len = sizeof(int);
	int pidfd = -1;
	pid_t pid;
	enum identity_err e;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) != 0 ||
	    pidfd < 0) {
		/* Fall back to the pid only where the kernel lacks the option:
		 * for an exited peer the pid may already name someone else. */
		if (errno != ENOPROTOOPT) {
			identity_clear(out);
			out->err_errno = errno;
			e = errno == ENODATA ? IDENTITY_ERR_INVALID :
			                       IDENTITY_ERR_NO_OWNER;
			ctx->st.lookups++;
			ctx->st.errors[e]++;
			return e;
		}
		len = sizeof(cred);
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
			identity_clear(out);
			out->err_errno = errno;
			ctx->st.lookups++;
			ctx->st.errors[IDENTITY_ERR_INVALID]++;
			return IDENTITY_ERR_INVALID;
		}
		return identity_from_pid(ctx, cred.pid, out);
	}
	if (!pidfd_pid(ctx, pidfd, &pid) || pid == 0) {
		close(pidfd);
		identity_clear(out);
		ctx->st.lookups++;
		ctx->st.errors[IDENTITY_ERR_PROC]++;
		return IDENTITY_ERR_PROC;
	}
	if (pid < 0 || pidfd_exited(pidfd)) {
		close(pidfd);
		identity_clear(out);
		ctx->st.lookups++;
		ctx->st.errors[IDENTITY_ERR_NO_OWNER]++;
		return IDENTITY_ERR_NO_OWNER;
	}
	/* The peer was alive with this pid before and after the reads, which
	 * went through a pinned /proc/PID: they describe the peer. */
	e = identity_from_pid(ctx, pid, out);
	if (e == IDENTITY_OK && pidfd_exited(pidfd)) {
		ctx->st.ok--;
		ctx->st.errors[IDENTITY_ERR_PID_REUSED]++;
		out->err_pid = pid;
		e = IDENTITY_ERR_PID_REUSED;
	}
	close(pidfd);
	return e;
}

struct identity_ctx *
identity_new(int netns_fd, char *err, size_t errlen)
{
	struct identity_ctx *ctx = calloc(1, sizeof(*ctx));
	struct stat st;
	bool stranded;
	int fd;

	if (ctx == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ctx->proc_fd = ctx->stat_fd = ctx->loadavg_fd = -1;
	for (int i = 0; i < IDENTITY_MRU_LEN; i++)
		ctx->mru[i] = (struct mru){0, -1, -1, -1, -1, -1, -1, 0};
	ctx->full_scan_interval_ms = IDENTITY_FULL_SCAN_MS;
	ctx->tgid_off = -1;
	ctx->pid_max = 32768;
	ctx->clk_tck = sysconf(_SC_CLK_TCK);
	if (ctx->clk_tck <= 0 || ctx->clk_tck > 1000000)
		ctx->clk_tck = 100;

	ctx->proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ctx->proc_fd < 0) {
		snprintf(err, errlen, "open /proc: %s", strerror(errno));
		goto fail;
	}
	ctx->stat_fd = openat(ctx->proc_fd, "stat", O_RDONLY | O_CLOEXEC);
	ctx->loadavg_fd = openat(ctx->proc_fd, "loadavg", O_RDONLY | O_CLOEXEC);
	if (ctx->stat_fd < 0 || ctx->loadavg_fd < 0) {
		snprintf(err, errlen, "open /proc/stat, /proc/loadavg: %s",
		    strerror(errno));
		goto fail;
	}
	if (netns_fd >= 0) {
		if (fstat(netns_fd, &st) != 0) {
			snprintf(err, errlen, "netns fd: %s", strerror(errno));
			goto fail;
		}
	} else if (fstatat(ctx->proc_fd, "thread-self/ns/net", &st, 0) != 0) {
		snprintf(err, errlen, "stat /proc/thread-self/ns/net: %s",
		    strerror(errno));
		goto fail;
	}
	ctx->ns_dev = (uint64_t)st.st_dev;
	ctx->ns_ino = (uint64_t)st.st_ino;
	if (stat("/", &st) == 0) {
		ctx->root_dev = (uint64_t)st.st_dev;
		ctx->root_ino = (uint64_t)st.st_ino;
	}
	if (fstatat(ctx->proc_fd, "thread-self/ns/mnt", &st, 0) == 0) {
		ctx->mnt_dev = (uint64_t)st.st_dev;
		ctx->mnt_ino = (uint64_t)st.st_ino;
	}
	fd = sys_pidfd_open(getpid());
	ctx->have_pidfd = fd >= 0;
	if (fd >= 0)
		close(fd);

	ctx->nl =
	    nlns_socket(netns_fd, NETLINK_SOCK_DIAG, err, errlen, &stranded);
	if (ctx->nl == NULL)
		goto fail;
	if (!refresh_full(ctx)) {
		snprintf(err, errlen, "listing /proc: %s", strerror(errno));
		goto fail;
	}
	return ctx;
fail:
	identity_free(ctx);
	return NULL;
}

void
identity_free(struct identity_ctx *ctx)
{
	if (ctx == NULL)
		return;
	if (ctx->nl != NULL)
		nl_socket_free(ctx->nl);
	for (size_t i = 0; i < ctx->ncand; i++)
		if (ctx->cand[i].fd_dir >= 0)
			close(ctx->cand[i].fd_dir);
	for (size_t i = 0; i < ctx->nprob; i++)
		close(ctx->prob[i].pid_dir);
	for (int i = 0; i < IDENTITY_MRU_LEN; i++)
		mru_evict(ctx, i);
	close_fd(&ctx->proc_fd);
	close_fd(&ctx->stat_fd);
	close_fd(&ctx->loadavg_fd);
	free(ctx->cand);
	free(ctx->found);
	free(ctx);
}
