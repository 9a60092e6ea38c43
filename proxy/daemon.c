/* SPDX-License-Identifier: ISC */
/*
 * Daemon lifecycle: policy, listeners (inside the sandbox's network
 * namespace when one is served), the modules every session uses, signals,
 * the accept loop, and the drain on SIGTERM. Owns the one struct daemon;
 * leaves everything per connection to session.c.
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "caller.h"
#include "clock.h"
#include "control.h"
#include "conntrack.h"
#include "daemon.h"
#include "dns_map.h"
#include "dns_server.h"
#include "exehash.h"
#include "identity.h"
#include "log.h"
#include "metrics.h"
#include "policy.h"
#include "relay.h"
#include "session.h"
#include "strbuf.h"
#include "tls_ca.h"

extern const unsigned char default_policy_yaml[];
extern const size_t default_policy_yaml_len;

#define ACCEPT_BATCH      64
#define ACCEPT_BACKOFF_MS 100
#define SWEEP_MS          1000

void
daemon_config_default(struct daemon_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	resolver_opts_default(&cfg->dns);
	cfg->human_log = true;
	cfg->head_timeout_ms = 10000;
	cfg->hello_timeout_ms = 10000;
	cfg->sniff_timeout_ms = 250;
	cfg->connect_timeout_ms = 10000;
	cfg->idle_timeout_ms = 600000;
	cfg->drain_timeout_ms = 10000;
	cfg->max_conns = 20000;
	cfg->max_conns_per_caller = 2000;
	cfg->pipe_size = RELAY_BULK_PIPE_DEFAULT;
}

/* ---- policy --------------------------------------------------------------- */

static struct policy *
load_policy(
    const struct daemon_config *cfg, uint64_t generation, struct diags *d)
{
	struct policy_load_opts opts = {cfg->root, false};
	struct policy *p;

	if (cfg->policy_file)
		p = policy_load_file(cfg->policy_file, &opts, d);
	else
		p = policy_load_buffer((const char *)default_policy_yaml,
		    default_policy_yaml_len, d->file, &opts, d);
	if (p)
		p->generation = generation;
	return p;
}

static void
print_diags(const struct diags *d)
{
	struct strbuf sb;

	strbuf_init(&sb, 0);
	diags_format(d, &sb);
	if (sb.len)
		fputs(strbuf_str(&sb), stderr);
	strbuf_free(&sb);
}

static const char *
policy_name(const struct daemon_config *cfg)
{
	return cfg->policy_file ? cfg->policy_file : "(built-in default)";
}

bool
daemon_reload(
    struct daemon *d, struct diags *diags, unsigned *revoked, unsigned *flagged)
{
	struct policy *p = load_policy(&d->cfg, d->generation + 1, diags);
	struct session *s, *n;

	*revoked = *flagged = 0;
	if (p == NULL) {
		d->stats.reload_failures++;
		log_err(
		    "reload of %s failed (%zu error%s); the running policy (generation %llu) stays",
		    policy_name(&d->cfg), diags->nerrors,
		    diags->nerrors == 1 ? "" : "s",
		    (unsigned long long)d->generation);
		print_diags(diags);
		return false;
	}
	/* the swap: new connections decide with p from now on */
	policy_unref(d->policy);
	d->policy = p;
	d->generation++;
	d->stats.reloads++;
	d->stats.loaded_at_s = (uint64_t)time(NULL);
	for (s = d->sessions; s; s = n) {
		n = s->next;
		session_recheck(s, p, revoked, flagged);
	}
	log_info(
	    "policy %s reloaded: generation %llu, %zu warning%s; %u connection%s revoked, %u flagged",
	    policy_name(&d->cfg), (unsigned long long)d->generation,
	    diags->nwarnings, diags->nwarnings == 1 ? "" : "s", *revoked,
	    *revoked == 1 ? "" : "s", *flagged);
	return true;
}

/* ---- listeners ------------------------------------------------------------ */

/* "ADDR:PORT" or "[ADDR]:PORT" into a sockaddr (numeric only). */
static bool
parse_hostport(const char *text, struct sockaddr_storage *ss, socklen_t *len)
{
	const char *colon, *host = text;
	size_t hlen;
	char *end;
	long port;
	struct addr a;

	if (text[0] == '[') {
		const char *rb = strchr(text, ']');

		if (rb == NULL || rb[1] != ':')
			return false;
		host = text + 1;
		hlen = (size_t)(rb - host);
		colon = rb + 1;
	} else {
		if ((colon = strrchr(text, ':')) == NULL)
			return false;
		hlen = (size_t)(colon - text);
	}
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (*end || errno || port < 0 || port > 65535 || colon[1] == '\0')
		return false;
	if (!addr_parse(host, hlen, &a))
		return false;
	*len = addr_to_sockaddr(&a, (uint16_t)port, ss);
	return true;
}

static void accept_cb(evutil_socket_t fd, short what, void *arg);

static void
backoff_cb(evutil_socket_t fd, short what, void *arg)
{
	struct listener *l = arg;

	(void)fd;
	(void)what;
	if (!l->d->draining)
		event_add(l->ev, NULL);
}

static void
accept_cb(evutil_socket_t lfd, short what, void *arg)
{
	struct listener *l = arg;
	struct daemon *d = l->d;
	int i;

	(void)what;
	for (i = 0; i < ACCEPT_BATCH; i++) {
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		int fd = accept4(lfd, (struct sockaddr *)&peer, &plen,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd >= 0) {
			session_accept(l, fd, (struct sockaddr *)&peer);
			continue;
		}
		if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
			return;
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
		    errno == ENOMEM) {
			/* Out of descriptors: the pending connection would
			 * make accept readable forever. Stop watching for a
			 * while instead of spinning. */
			struct timeval tv = {0, ACCEPT_BACKOFF_MS * 1000};

			if (d->stats.accept_backoffs++ % 100 == 0)
				log_warn(
				    "%s: accept: %s; pausing %d ms (raise the file limit or lower --max-conns)",
				    l->name, strerror(errno),
				    ACCEPT_BACKOFF_MS);
			event_del(l->ev);
			event_add(l->backoff, &tv);
			return;
		}
		log_warn("%s: accept: %s", l->name, strerror(errno));
		return;
	}
}

static bool
switch_netns(struct daemon *d, bool to_sandbox, char *err, size_t errlen)
{
	int fd = to_sandbox ? d->sandbox_netns : d->own_netns;

	if (fd == -1)
		return true;
	if (setns(fd, CLONE_NEWNET) == -1) {
		snprintf(err, errlen, "setns(%s): %s",
		    to_sandbox ? d->cfg.netns : "egressd's own namespace",
		    strerror(errno));
		return false;
	}
	return true;
}

static int
open_socket(const struct listen_spec *spec, struct listener *l, char *err,
    size_t errlen)
{
	int one = 1, fd;
	int type = spec->kind == LISTEN_DNS_UDP ? SOCK_DGRAM : SOCK_STREAM;

	if (spec->kind == LISTEN_UNIX) {
		struct sockaddr_un *un = (struct sockaddr_un *)&l->addr;

		if (strlen(spec->text) >= sizeof(un->sun_path)) {
			snprintf(err, errlen, "unix socket path too long: %s",
			    spec->text);
			return -1;
		}
		un->sun_family = AF_UNIX;
		strcpy(un->sun_path, spec->text);
		l->addrlen = sizeof(*un);
		unlink(spec->text);
	} else if (!parse_hostport(spec->text, &l->addr, &l->addrlen)) {
		snprintf(err, errlen,
		    "invalid listen address '%s' (want ADDR:PORT, e.g. 127.0.0.1:3128 or [::1]:3128)",
		    spec->text);
		return -1;
	}
	fd = socket(l->addr.ss_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		snprintf(
		    err, errlen, "%s: socket: %s", spec->text, strerror(errno));
		return -1;
	}
	if (spec->kind != LISTEN_UNIX) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (l->addr.ss_family == AF_INET6)
			setsockopt(
			    fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		/* Accepted sockets inherit it: a reply or a relayed TLS
		 * record never waits for the peer's ACK (Nagle), and no
		 * accept pays a setsockopt. */
		if (type == SOCK_STREAM)
			setsockopt(
			    fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	if (bind(fd, (struct sockaddr *)&l->addr, l->addrlen) == -1) {
		snprintf(err, errlen, "%s: bind: %s%s", spec->text,
		    strerror(errno),
		    errno == EACCES ? " (ports below 1024 need root)" :
		        errno == EADDRINUSE ?
		                      " (something else listens there)" :
		                      "");
		close(fd);
		return -1;
	}
	if (spec->kind == LISTEN_UNIX)
		chmod(spec->text, 0666); /* access is decided per caller */
	if (type == SOCK_STREAM && listen(fd, 1024) == -1) {
		snprintf(
		    err, errlen, "%s: listen: %s", spec->text, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static bool
open_listeners(struct daemon *d, char *err, size_t errlen)
{
	static const char *const kind_names[] = {"explicit proxy", "unix proxy",
	    "transparent", "dns/udp", "dns/tcp"};
	size_t i;

	for (i = 0; i < d->cfg.nlistens; i++) {
		const struct listen_spec *spec = &d->cfg.listens[i];
		struct listener *l = &d->listeners[d->nlisteners];
		int fd;

		memset(l, 0, sizeof(*l));
		l->d = d;
		l->kind = spec->kind;
		l->in_sandbox = spec->in_sandbox && d->sandbox_netns != -1;
		snprintf(l->name, sizeof(l->name), "%s %s%s",
		    kind_names[spec->kind], spec->text,
		    l->in_sandbox ? " (in the sandbox)" : "");
		/* Listeners the sandbox reaches live in its namespace; the
		 * thread goes back to its own before anything else, so
		 * upstream sockets are never created inside. */
		if (l->in_sandbox && !switch_netns(d, true, err, errlen))
			return false;
		fd = open_socket(spec, l, err, errlen);
		if (l->in_sandbox && !switch_netns(d, false, err, errlen)) {
			/* a process stuck in the sandbox namespace must not
			 * go on: its upstream sockets would loop */
			fatal("%s", err);
		}
		if (fd == -1)
			return false;
		l->fd = fd;
		if (spec->kind == LISTEN_DNS_UDP ||
		    spec->kind == LISTEN_DNS_TCP) {
			/* the DNS server owns these sockets and their events */
			if (!(spec->kind == LISTEN_DNS_UDP ?
			            dns_server_add_udp(d->dns, fd) :
			            dns_server_add_tcp(d->dns, fd))) {
				snprintf(err, errlen,
				    "%s: too many DNS sockets", spec->text);
				close(fd);
				return false;
			}
			l->fd = -1;
			d->nlisteners++;
			log_info("listening: %s", l->name);
			continue;
		}
		l->ev =
		    event_new(d->base, fd, EV_READ | EV_PERSIST, accept_cb, l);
		l->backoff = evtimer_new(d->base, backoff_cb, l);
		if (l->ev == NULL || l->backoff == NULL)
			fatal("out of memory");
		event_add(l->ev, NULL);
		d->nlisteners++;
		log_info("listening: %s", l->name);
	}
	return true;
}

static void
close_listeners(struct daemon *d)
{
	size_t i;

	for (i = 0; i < d->nlisteners; i++) {
		struct listener *l = &d->listeners[i];

		if (l->ev) {
			event_free(l->ev);
			l->ev = NULL;
		}
		if (l->backoff) {
			event_free(l->backoff);
			l->backoff = NULL;
		}
		if (l->fd != -1) {
			close(l->fd);
			l->fd = -1;
		}
		if (l->kind == LISTEN_UNIX)
			unlink(((struct sockaddr_un *)&l->addr)->sun_path);
	}
}

/* ---- the policy DNS server ------------------------------------------------- */

static const struct policy *
current_policy(void *arg)
{
	return ((struct daemon *)arg)->policy;
}

static void
dns_report(const struct dns_server_event *ev, void *arg)
{
	struct daemon *d = arg;
	struct audit_record r;
	struct caller c;
	bool have_caller = false;
	char detail[96];

	memset(&r, 0, sizeof(r));
	memset(&c, 0, sizeof(c));
	/* Over TCP the querying process can be found like any caller; a UDP
	 * query is named by its source address only. */
	if (ev->tcp && ev->fd != -1 && ev->src && ev->local) {
		struct sockaddr_storage peer, local;

		addr_to_sockaddr(ev->src, ev->src_port, &peer);
		addr_to_sockaddr(ev->local, ev->local_port, &local);
		caller_from_identity(d->callers, &c,
		    identity_lookup(d->identity, (struct sockaddr *)&peer,
		        (struct sockaddr *)&local, d->scratch),
		    d->scratch);
		have_caller = true;
		r.pid = c.pid;
		r.uid = c.uid;
		r.exe = c.exe ? c.exe->path : NULL;
		r.cmdline = c.cmdline;
	}
	r.activity = AUDIT_DNS;
	r.ingress = ev->tcp ? "dns/tcp" : "dns/udp";
	r.src = ev->src;
	r.src_port = ev->src_port;
	r.host = ev->name;
	r.port = 53;
	r.verdict = ev->would_deny             ? VERDICT_AUDIT :
	    ev->outcome == DNS_SERVER_ANSWERED ? VERDICT_ALLOW :
	                                         VERDICT_DENY;
	r.mode = ev->would_deny ? ENFORCE_AUDIT : ENFORCE_ENFORCE;
	r.overridden = ev->would_deny;
	r.reason = ev->would_deny              ? REASON_DNS_NAME_NOT_ALLOWED :
	    ev->outcome == DNS_SERVER_ANSWERED ? REASON_ALLOWED :
	    ev->why && reason_from_code(ev->why) != REASON__COUNT ?
	                                         reason_from_code(ev->why) :
	    ev->outcome == DNS_SERVER_FAILED ? REASON_DNS_FAILED :
	                                       REASON_BAD_REQUEST;
	r.reason_text = reason_text(r.reason);
	snprintf(detail, sizeof(detail),
	    "%s type %u, rcode %u, %zu answer%s%s%s", ev->tcp ? "TCP" : "UDP",
	    ev->qtype, ev->rcode, ev->nanswers, ev->nanswers == 1 ? "" : "s",
	    ev->why ? ": " : "", ev->why ? ev->why : "");
	r.detail = detail;
	if (r.reason == REASON_DNS_NAME_NOT_ALLOWED)
		r.hint =
		    "add an endpoint for this name to a policy, or find out why the sandbox looks it up";
	r.generation = d->policy ? d->policy->generation : 0;
	audit_log(d->audit, &r);
	if (have_caller)
		caller_release(d->callers, &c);
}

static bool
want_dns(const struct daemon_config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->nlistens; i++)
		if (cfg->listens[i].kind == LISTEN_DNS_UDP ||
		    cfg->listens[i].kind == LISTEN_DNS_TCP)
			return true;
	return false;
}

static void
start_dns(struct daemon *d)
{
	struct dns_server_opts o;

	d->dnsmap = dns_map_new(16384);
	dns_server_opts_default(&o);
	o.base = d->base;
	o.resolver = d->resolver;
	o.map = d->dnsmap;
	o.trust = d->cfg.trust;
	o.ntrust = d->cfg.ntrust;
	o.policy = current_policy;
	o.audit = d->cfg.override == DECIDE_MODE_AUDIT;
	o.report = dns_report;
	o.arg = d;
	d->dns = dns_server_new(&o);
}

/* ---- signals -------------------------------------------------------------- */

static void
drain_check(struct daemon *d)
{
	if (d->draining && d->nsessions == 0)
		event_base_loopexit(d->base, NULL);
}

static void
drain_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;

	(void)fd;
	(void)what;
	log_info("drain deadline reached: closing %u remaining connection%s",
	    d->nsessions, d->nsessions == 1 ? "" : "s");
	session_close_all(d);
	event_base_loopexit(d->base, NULL);
}

static void
term_cb(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;
	struct timeval tv;
	size_t i;

	(void)what;
	if (d->draining) {
		log_info("second signal: exiting now");
		session_close_all(d);
		event_base_loopexit(d->base, NULL);
		return;
	}
	d->draining = true;
	log_info(
	    "%s: no longer accepting; draining %u connection%s (deadline %u ms)",
	    strsignal((int)sig), d->nsessions, d->nsessions == 1 ? "" : "s",
	    d->cfg.drain_timeout_ms);
	for (i = 0; i < d->nlisteners; i++) {
		/* DNS sockets belong to the DNS server: it keeps answering
		 * while the tunnels drain */
		if (d->listeners[i].ev)
			event_del(d->listeners[i].ev);
		if (d->listeners[i].backoff)
			event_del(d->listeners[i].backoff);
	}
	tv.tv_sec = d->cfg.drain_timeout_ms / 1000;
	tv.tv_usec = (d->cfg.drain_timeout_ms % 1000) * 1000;
	d->drain_timer = evtimer_new(d->base, drain_timeout_cb, d);
	if (d->drain_timer == NULL)
		fatal("out of memory");
	event_add(d->drain_timer, &tv);
	drain_check(d);
}

static void
usr1_cb(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;
	char err[256];

	(void)sig;
	(void)what;
	if (audit_reopen(d->audit, err, sizeof(err)))
		log_info("SIGUSR1: log files reopened");
	else
		log_err("SIGUSR1: %s", err);
}

static void
hup_cb(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;
	struct diags dg;
	unsigned revoked, flagged;

	(void)sig;
	(void)what;
	diags_init(&dg, policy_name(&d->cfg));
	log_info("SIGHUP: reloading %s", policy_name(&d->cfg));
	daemon_reload(d, &dg, &revoked, &flagged);
	diags_free(&dg);
}

/* --watch: the policy file changed (written in place, or replaced by a
 * rename as editors do); reload once things settle. */
static void
watch_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;
	struct diags dg;
	unsigned revoked, flagged;

	(void)fd;
	(void)what;
	diags_init(&dg, policy_name(&d->cfg));
	log_info("%s changed: reloading", policy_name(&d->cfg));
	daemon_reload(d, &dg, &revoked, &flagged);
	diags_free(&dg);
}

static void
watch_cb(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;
	char buf[4096]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	const char *base = strrchr(d->cfg.policy_file, '/');
	struct timeval settle = {0, 200000};
	bool hit = false;
	ssize_t n;

	(void)what;
	base = base ? base + 1 : d->cfg.policy_file;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		char *p = buf;

		while (p < buf + n) {
			const struct inotify_event *ev =
			    (const struct inotify_event *)p;

			if (ev->len && strcmp(ev->name, base) == 0)
				hit = true;
			p += sizeof(*ev) + ev->len;
		}
	}
	if (hit)
		event_add(d->watch_timer, &settle);
}

static bool
start_watch(struct daemon *d, char *err, size_t errlen)
{
	char dir[4096];
	const char *slash = strrchr(d->cfg.policy_file, '/');

	if (d->cfg.policy_file == NULL) {
		snprintf(err, errlen, "--watch needs a policy file (-p)");
		return false;
	}
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s",
		    (int)(slash == d->cfg.policy_file ?
		            1 :
		            slash - d->cfg.policy_file),
		    d->cfg.policy_file);
	else
		snprintf(dir, sizeof(dir), ".");
	d->watch_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (d->watch_fd == -1 ||
	    inotify_add_watch(d->watch_fd, dir,
	        IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) == -1) {
		snprintf(
		    err, errlen, "--watch %.256s: %s", dir, strerror(errno));
		return false;
	}
	d->watch_ev =
	    event_new(d->base, d->watch_fd, EV_READ | EV_PERSIST, watch_cb, d);
	d->watch_timer = evtimer_new(d->base, watch_timer_cb, d);
	if (d->watch_ev == NULL || d->watch_timer == NULL)
		fatal("out of memory");
	event_add(d->watch_ev, NULL);
	return true;
}

/* The interception CA: generated per daemon (so per sandbox) unless one is
 * given; its certificate and a bundle with the trusted roots are written
 * where the sandbox's tools can read them. */
static bool
start_ca(struct daemon *d, char *err, size_t errlen)
{
	struct tls_ca_opts o;
	char dir[512];

	memset(&o, 0, sizeof(o));
	o.cert_file = d->cfg.ca_cert;
	o.key_file = d->cfg.ca_key;
	o.roots = d->cfg.upstream_ca;
	if (d->cfg.ca_dir) {
		o.out_dir = d->cfg.ca_dir;
	} else {
		if (mkdir("/run/egressd-ca", 0755) == -1 && errno != EEXIST) {
			snprintf(err, errlen,
			    "cannot create /run/egressd-ca: %s",
			    strerror(errno));
			return false;
		}
		snprintf(dir, sizeof(dir), "/run/egressd-ca/%s",
		    d->cfg.netns && !strchr(d->cfg.netns, '/') ? d->cfg.netns :
		                                                 "default");
		o.out_dir = dir;
	}
	if ((d->ca = tls_ca_new(&o, err, errlen)) == NULL)
		return false;
	log_info("interception CA: %s (bundle with trusted roots: %s)",
	    tls_ca_cert_path(d->ca), tls_ca_bundle_path(d->ca));
	return true;
}

/* Every record goes by here: decision counters, and the control socket's
 * ring of denials and its live tails. */
static void
audit_tap(const struct audit_record *r, const char *json, void *arg)
{
	struct daemon *d = arg;

	if (r->activity != AUDIT_CLOSE && (unsigned)r->reason < REASON__COUNT)
		d->stats.decisions[r->verdict][r->reason]
		                  [r->mode == ENFORCE_AUDIT ? 1 : 0]++;
	control_record(d->control, r, json);
}

static void
sweep_cb(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;

	(void)fd;
	(void)what;
	session_sweep(d);
	drain_check(d);
}

static void
raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static bool
open_netns(struct daemon *d, char *err, size_t errlen)
{
	char path[256];
	const char *ns = d->cfg.netns;

	d->own_netns = d->sandbox_netns = -1;
	if (ns == NULL)
		return true;
	if (strchr(ns, '/'))
		snprintf(path, sizeof(path), "%s", ns);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", ns);
	if ((d->sandbox_netns = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen,
		    "cannot open the sandbox namespace %.200s: %s (create it with 'egressd-netns up %.64s')",
		    path, strerror(errno), ns);
		return false;
	}
	if ((d->own_netns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) ==
	    -1) {
		snprintf(err, errlen, "cannot open /proc/self/ns/net: %s",
		    strerror(errno));
		return false;
	}
	return true;
}

static bool
has_transparent(const struct daemon_config *cfg)
{
	for (size_t i = 0; i < cfg->nlistens; i++)
		if (cfg->listens[i].kind == LISTEN_TRANSPARENT)
			return true;
	return false;
}

int
daemon_run(const struct daemon_config *cfg)
{
	struct daemon *d = calloc(1, sizeof(*d));
	struct timeval sweep = {SWEEP_MS / 1000, (SWEEP_MS % 1000) * 1000};
	char err[512] = "";
	int status = 1;

	if (d == NULL || (d->scratch = malloc(sizeof(*d->scratch))) == NULL)
		fatal("out of memory");
	d->cfg = *cfg;
	d->started_ms = clock_ms();
	signal(SIGPIPE, SIG_IGN);
	raise_fd_limit();
	relay_set_pipe_size(cfg->pipe_size);
	if (geteuid() != 0)
		log_warn(
		    "not running as root: caller identity (sock_diag, /proc of other users) will fail and every connection will be denied");
	{
		struct diags dg;

		diags_init(&dg, policy_name(cfg));
		d->policy = load_policy(cfg, 1, &dg);
		print_diags(&dg);
		if (d->policy)
			log_info(
			    "policy %s loaded (generation 1, %zu %s, %zu warning%s)",
			    policy_name(cfg), d->policy->nblocks,
			    d->policy->nblocks == 1 ? "block" : "blocks",
			    dg.nwarnings, dg.nwarnings == 1 ? "" : "s");
		diags_free(&dg);
	}
	if (d->policy == NULL) {
		log_err(
		    "the policy is invalid; not starting (check it with egressd -t)");
		goto out;
	}
	d->stats.loaded_at_s = (uint64_t)time(NULL);
	d->generation = 1;
	if ((d->base = event_base_new()) == NULL)
		fatal("libevent: cannot create the event loop");
	if (!open_netns(d, err, sizeof(err)))
		goto fail;
	if ((d->identity = identity_new(d->sandbox_netns, err, sizeof(err))) ==
	    NULL)
		goto fail;
	if (has_transparent(cfg) &&
	    (d->ct = conntrack_new(d->sandbox_netns, err, sizeof(err))) ==
	        NULL) {
		/* without it a redirected connection whose source port NAT
		 * changed would be looked up by the wrong port */
		size_t n = strlen(err);

		snprintf(err + n, sizeof(err) - n,
		    "; the transparent listener needs conntrack over netlink "
		    "to identify callers exactly (modprobe nf_conntrack_netlink)");
		goto fail;
	}
	if ((d->resolver =
	            resolver_new(d->base, &cfg->dns, err, sizeof(err))) == NULL)
		goto fail;
	if ((d->hash = exehash_new(d->base, err, sizeof(err))) == NULL)
		goto fail;
	if ((d->audit = audit_new(
	         cfg->log_json, cfg->human_log, err, sizeof(err))) == NULL)
		goto fail;
	audit_set_tap(d->audit, audit_tap, d);
	if (!start_ca(d, err, sizeof(err)))
		goto fail;
	d->callers = caller_table_new();
	if (cfg->control_path &&
	    (d->control = control_new(
	         d, cfg->control_path, err, sizeof(err))) == NULL)
		goto fail;
	if (cfg->metrics_addr &&
	    (d->metrics = metrics_new(
	         d, cfg->metrics_addr, err, sizeof(err))) == NULL)
		goto fail;
	if (cfg->watch && !start_watch(d, err, sizeof(err)))
		goto fail;
	if (want_dns(cfg))
		start_dns(d);
	if (!open_listeners(d, err, sizeof(err)))
		goto fail;
	d->sig_term = evsignal_new(d->base, SIGTERM, term_cb, d);
	d->sig_int = evsignal_new(d->base, SIGINT, term_cb, d);
	d->sig_usr1 = evsignal_new(d->base, SIGUSR1, usr1_cb, d);
	d->sig_hup = evsignal_new(d->base, SIGHUP, hup_cb, d);
	d->sweep = event_new(d->base, -1, EV_PERSIST, sweep_cb, d);
	if (d->sig_term == NULL || d->sig_int == NULL || d->sig_usr1 == NULL ||
	    d->sig_hup == NULL || d->sweep == NULL)
		fatal("out of memory");
	event_add(d->sig_term, NULL);
	event_add(d->sig_int, NULL);
	event_add(d->sig_usr1, NULL);
	event_add(d->sig_hup, NULL);
	event_add(d->sweep, &sweep);
	if (cfg->override != DECIDE_MODE_POLICY)
		log_info("mode override: every denial is %s",
		    cfg->override == DECIDE_MODE_ENFORCE ?
		        "enforced (--enforce-all)" :
		        "only logged (--audit-all)");
	log_info("ready");
	event_base_dispatch(d->base);
	log_info(
	    "stopped: %llu connections, %llu allowed, %llu denied, %llu would-deny",
	    (unsigned long long)d->stats.accepted,
	    (unsigned long long)d->stats.allowed,
	    (unsigned long long)d->stats.denied,
	    (unsigned long long)d->stats.would_deny);
	status = 0;
	goto out;
fail:
	log_err("%s", err);
out:
	if (d->base)
		session_close_all(d);
	close_listeners(d);
	if (d->base)
		event_base_loop(d->base, EVLOOP_NONBLOCK); /* run reapers */
	if (d->sig_term)
		event_free(d->sig_term);
	if (d->sig_int)
		event_free(d->sig_int);
	if (d->sig_usr1)
		event_free(d->sig_usr1);
	if (d->sig_hup)
		event_free(d->sig_hup);
	if (d->watch_ev)
		event_free(d->watch_ev);
	if (d->watch_timer)
		event_free(d->watch_timer);
	if (d->watch_fd > 0)
		close(d->watch_fd);
	control_free(d->control);
	tls_ca_free(d->ca);
	metrics_free(d->metrics);
	if (d->sweep)
		event_free(d->sweep);
	if (d->drain_timer)
		event_free(d->drain_timer);
	dns_server_free(d->dns);
	dns_map_free(d->dnsmap);
	audit_free(d->audit);
	exehash_free(d->hash);
	resolver_free(d->resolver);
	identity_free(d->identity);
	conntrack_free(d->ct);
	caller_table_free(d->callers);
	policy_unref(d->policy);
	if (d->base)
		event_base_free(d->base);
	if (d->own_netns > 0)
		close(d->own_netns);
	if (d->sandbox_netns > 0)
		close(d->sandbox_netns);
	free(d->scratch);
	free(d);
	return status;
}
