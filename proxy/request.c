/* SPDX-License-Identifier: ISC */
/*
 * Request decisions on a session: the endpoints, the decision under the
 * override, the record. See request.h.
 */
#include <string.h>

#include "audit.h"
#include "caller.h"
#include "daemon.h"
#include "request.h"
#include "session.h"

size_t
request_endpoints(const struct session *s, const struct policy *p,
    const struct hostname *host, const struct policy_endpoint **eps, size_t max)
{
	struct decide_caller view;
	struct decide_dest dest;
	size_t n;

	caller_view(
	    &s->caller, s->l->kind == LISTEN_UNIX ? NULL : &s->src, &view);
	dest.host = host;
	dest.port = s->port;
	dest.source = s->source;
	n = decide_allowing(p, &view, &dest, eps, max);
	return n < max ? n : max;
}

enum verdict
request_decide(const struct session *s,
    const struct policy_endpoint *const *eps, size_t n, const char *method,
    const char *target, size_t len, bool upgrade, struct l7_request *scratch,
    struct l7_decision *out)
{
	enum decide_override o = s->d->cfg.override;

	l7_request_decide(eps, n, method, target, len, upgrade,
	    s->policy ? s->policy->file : "-", scratch, out);
	if (o == DECIDE_MODE_ENFORCE)
		out->mode = ENFORCE_ENFORCE;
	else if (o == DECIDE_MODE_AUDIT)
		out->mode = ENFORCE_AUDIT;
	return l7_verdict(out, o);
}

void
request_record(const struct session *s, const char *method, const char *path,
    enum verdict v, enum reason why, enum policy_enforcement mode,
    const char *policy, const char *text, const char *hint, const char *detail)
{
	struct audit_record r;

	session_record(s, AUDIT_HTTP, &r);
	r.dst = &s->dst;
	r.verdict = v;
	r.reason = why;
	r.mode = mode;
	r.overridden = s->d->cfg.override != DECIDE_MODE_POLICY;
	r.policy = policy;
	r.method = method;
	r.path = path;
	r.reason_text = text;
	r.hint = hint;
	r.detail = detail;
	r.generation = s->policy ? s->policy->generation : 0;
	audit_log(s->d->audit, &r);
}
