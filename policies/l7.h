/* SPDX-License-Identifier: ISC */
/*
 * Request decisions inside an inspected (protocol: rest) tunnel: the
 * canonical form of a request path and query, the path and query-value
 * globs of request rules, the access presets (read-only with git smart
 * HTTP awareness, read-write, full), deny rules and upgrades. Pure, like
 * decide.h: the proxy and `egressctl explain` run the same code; reading
 * requests off the wire, TLS and the reply to the client belong to proxy/.
 */
#ifndef EGRESSD_L7_H
#define EGRESSD_L7_H

#include <stdbool.h>
#include <stddef.h>

#include "decide.h"
#include "policy.h"
#include "reason.h"

#define L7_PATH_MAX         8192 /* request-target bytes (path and query) */
#define L7_QUERY_MAX_PARAMS 64   /* key=value pairs in one query */
#define L7_GLOB_MAX_STEPS   (1u << 20) /* per glob match: see l7_glob_path */
#define L7_TEXT_MAX         768
#define L7_BY_MAX           192

/* The result of canonicalizing a path or parsing a query. */
enum l7_path_result {
	L7_PATH_OK,
	L7_PATH_ERR_EMPTY,         /* empty target */
	L7_PATH_ERR_NOT_ABSOLUTE,  /* does not start with '/' */
	L7_PATH_ERR_TOO_LONG,      /* over L7_PATH_MAX */
	L7_PATH_ERR_BUFFER,        /* the caller's output buffer is too small */
	L7_PATH_ERR_BAD_ESCAPE,    /* '%' not followed by two hex digits */
	L7_PATH_ERR_NUL,           /* %00 */
	L7_PATH_ERR_CHAR,          /* a byte outside RFC 3986 pchar and '/' */
	L7_PATH_ERR_BACKSLASH,     /* a raw '\' */
	L7_PATH_ERR_ENCODED_SLASH, /* %2F without allow_encoded_slash */
	L7_PATH_ERR_ENCODED_BACKSLASH, /* %5C */
	L7_PATH_ERR_DOUBLE_ENCODED,    /* %25 followed by two hex digits */
	L7_PATH_ERR_BAD_UTF8,          /* escaped bytes that are not UTF-8 */
	L7_PATH_ERR_DOT_PARAMS,        /* "..;x", ".;x": servlets see ".." */
	L7_PATH_ERR_ENCODED_DOT,       /* "." or ".." next to an allowed %2F */
	L7_PATH_ERR_ABOVE_ROOT,        /* ".." climbing above "/" */
	L7_PATH_ERR_QUERY_ESCAPE,      /* malformed escape in the query */
	L7_PATH_ERR_QUERY_NUL,         /* %00 in the query */
	L7_PATH_ERR_QUERY_CHAR,        /* a byte outside RFC 3986 query chars */
	L7_PATH_ERR_QUERY_TOO_MANY,    /* more than L7_QUERY_MAX_PARAMS pairs */
	L7_PATH_ERR_PATTERN_QUERY,     /* a rule path with '?' or '#' */
	L7_PATH_ERR_PATTERN_STARSTAR,  /* "**" not a whole segment */
	L7_PATH_ERR_PATTERN_DOT,       /* "." or ".." segment in a rule path */
};

/* Bytes [off, off + len) of the caller's input. */
struct l7_span {
	size_t off, len;
};

/* Where l7_path_canon() put its results. */
struct l7_target {
	size_t path_len;      /* canonical path: out[0..path_len), NUL-ended */
	bool has_query;       /* the target had a '?' */
	struct l7_span query; /* the raw query after '?' (may be empty) */
};

/*
 * Canonicalizes an origin-form request target in[0..len) (path and optional
 * "?query", exactly as the client sent it) into out[0..out_cap). The path
 * becomes the form rules are matched against (RFC 3986 §6.2.2):
 *  - escapes of unreserved characters (ALPHA DIGIT - . _ ~) are decoded,
 *    every other escape is kept with uppercase hex (§2.3, §6.2.2.1-2);
 *  - "." and ".." segments are removed (§5.2.4), after decoding, so %2e
 *    and %2E count; ".." above the root is L7_PATH_ERR_ABOVE_ROOT;
 *  - empty segments collapse ("//" -> "/"), before dot segments are
 *    removed: "/a//../b" is "/b" (as nginx merge_slashes and Go's
 *    path.Clean do); one trailing '/' is kept ("/simple/pkg/");
 *  - %2F is an error unless allow_encoded_slash, and then stays "%2F"
 *    inside its segment (never a separator); %5C, %00, %25 followed by two
 *    hex digits (double encoding), escaped bytes that are not well-formed
 *    UTF-8 (overlong forms such as %C0%AE included), a raw '\', any raw
 *    byte outside pchar and '/', a '#', "." or ".." followed by ";" (or
 *    %3B), and "." or ".." between an allowed %2F and a segment boundary
 *    ("..%2F") are errors: each is a known way to make a server see
 *    another path than the one decided on.
 * The output is never longer than the path part of the input, so out_cap >
 * min(len, L7_PATH_MAX) always suffices. The query is only located (t->query
 * in the input); validate and split it with l7_query_parse(). Idempotent:
 * canonicalizing out[0..path_len) again gives the same bytes. On error,
 * *err_off (may be NULL) is the offending input offset. Linear time, no
 * allocation.
 */
enum l7_path_result l7_path_canon(const char *in, size_t len,
    bool allow_encoded_slash, char *out, size_t out_cap, struct l7_target *t,
    size_t *err_off);

/* One query parameter, percent-decoded ('+' is a space) and NUL-ended;
 * value is "" when the piece has no '='. */
struct l7_query_param {
	const char *key, *value; /* into the owning l7_query_params' buf */
	size_t key_len, value_len;
	bool has_value; /* "key=..." rather than "key" */
};

struct l7_query_params {
	size_t n;
	struct l7_query_param p[L7_QUERY_MAX_PARAMS];
	char buf[L7_PATH_MAX + L7_QUERY_MAX_PARAMS + 1];
};

/*
 * Parses the raw query q[0..len) (what follows '?') into out: split on '&'
 * only (never ';'), empty pieces skipped, each "key=value" split at the
 * first '=', both decoded as application/x-www-form-urlencoded ("+" is a
 * space, as the servers that read queries decode them). Every raw byte
 * must be an RFC 3986 query character (pchar, '/', '?') and every '%' a
 * valid escape other than %00. Errors: L7_PATH_ERR_QUERY_*, TOO_LONG;
 * *err_off (may be NULL) is the offending offset in q. Linear, no
 * allocation.
 */
enum l7_path_result l7_query_parse(
    const char *q, size_t len, struct l7_query_params *out, size_t *err_off);

/*
 * Canonicalizes a rule's path glob like a request path (with encoded
 * slashes allowed: a "%2F" in a pattern only matches a "%2F" in a path),
 * so "/~user/x" and "/%7Euser/x" are the same rule. Errors as for
 * l7_path_canon() plus L7_PATH_ERR_PATTERN_QUERY for '?' or '#'. '*' is a
 * sub-delimiter and passes through.
 */
enum l7_path_result l7_pattern_canon(
    const char *pat, char *out, size_t out_cap, size_t *err_off);

/*
 * The load-time check of a rule's path glob: l7_pattern_canon() plus
 * L7_PATH_ERR_PATTERN_STARSTAR ("**" not a whole segment) and
 * L7_PATH_ERR_PATTERN_DOT ("." or ".." segments). A pattern that passes
 * means exactly what it says; policy loading should refuse the others.
 */
enum l7_path_result l7_pattern_check(const char *pat, size_t *err_off);

/* A precise English description of r. */
const char *l7_path_strerror(enum l7_path_result r);

enum l7_glob_result {
	L7_GLOB_NO_MATCH = 0,
	L7_GLOB_MATCH,
	L7_GLOB_TOO_COMPLEX, /* gave up after L7_GLOB_MAX_STEPS */
};

/*
 * Matches a canonical path against a canonical path glob (both NUL-ended):
 * "*" matches any run of characters within one segment (never '/'; it
 * does match "%2F", which is not a separator); "**" as a whole segment
 * matches zero or more whole segments, so "/repos/" "**" matches "/repos",
 * "/repos/a" and "/repos/a/b", and "/" "**" matches every path; "**" in a
 * segment is the same as "*". A trailing '/' is ignored on both sides
 * ("/simple/pip/" is matched as "/simple/pip"). Every byte but '*'
 * matches itself (case-sensitive). Greedy with one backtrack point per
 * level, so the work is at most proportional to pattern length times path
 * length, never exponential; *steps (may be NULL) receives the
 * comparisons made, and past L7_GLOB_MAX_STEPS the answer is
 * L7_GLOB_TOO_COMPLEX (callers fail closed: an allow rule does not match,
 * a deny rule does).
 */
enum l7_glob_result l7_glob_path(
    const char *pattern, const char *path, size_t *steps);

/*
 * Matches a decoded query value v[0..vlen) against a value glob: "*"
 * matches any run of bytes ('/' included), everything else itself. Same
 * bounds as l7_glob_path().
 */
enum l7_glob_result l7_glob_value(
    const char *pattern, const char *v, size_t vlen, size_t *steps);

/* Which part of the policy decided. */
enum l7_by {
	L7_BY_NONE,        /* nothing allowed it (see reason) */
	L7_BY_PRESET,      /* the endpoint's access preset */
	L7_BY_RULE,        /* an allow rule */
	L7_BY_DENY_RULE,   /* a deny rule */
	L7_BY_UNINSPECTED, /* an endpoint without protocol: rest */
	L7_BY_PATH,        /* the path was refused before any rule */
};

struct l7_decision {
	bool allowed;
	enum reason reason; /* REASON_ALLOWED or why not */
	/* For a denial: enforce, or audit (let through as would_deny).
	 * For an allowed request: the deciding endpoint's enforcement. */
	enum policy_enforcement mode;
	enum l7_by by;
	const struct policy_endpoint *endpoint; /* the one that decided or
	                                           the one the hint is about */
	size_t endpoint_index;                  /* its index in eps */
	const struct l7_rule *rule;   /* L7_BY_RULE / L7_BY_DENY_RULE */
	enum policy_access access;    /* the endpoint's preset */
	enum l7_path_result path_err; /* L7_BY_PATH */
	size_t path_err_off;
	/* "access: read-only (policy.yaml:12)", "allow rule (p.yaml:14:13)",
	 * "deny rule (...)", "rules (...)", "request path check" */
	char by_text[L7_BY_MAX];
	char reason_text[L7_TEXT_MAX];
	char hint[L7_TEXT_MAX]; /* empty when allowed */
};

/*
 * Decides one request on a connection that eps[0..neps) allowed (every
 * endpoint that allowed it, in policy order; l7_endpoints_collect() finds
 * them). method is the request method as sent (uppercase), canon_path the
 * output of l7_path_canon() (with allow_encoded_slash set when any of the
 * endpoints allows it: an endpoint without it refuses paths with "%2F"),
 * query the parsed query or NULL, is_upgrade whether the request asks for
 * a protocol upgrade (WebSocket, h2c), file the policy file for hints.
 *
 * Semantics (docs/policy.md, "Access presets and request rules"):
 *  - A deny rule of any endpoint that matches refuses (request_denied),
 *    whatever allows it. A deny rule whose path glob is invalid or too
 *    complex matches (fail closed).
 *  - Otherwise the request is allowed when any endpoint allows it: its
 *    access preset or one of its allow rules (method equal or "*", path
 *    glob or any path, and every query matcher: the key present, and
 *    every value given for it matching one of the globs).
 *  - An endpoint without protocol: rest among eps allows every request,
 *    before any deny rule (the proxy does not intercept such connections:
 *    decide() reports the broadest endpoint).
 *  - read-only: GET, HEAD, OPTIONS, and POST to ".../git-upload-pack"
 *    (git clone and fetch), but nothing on ".../git-receive-pack" and no
 *    ".../info/refs" with a service other than git-upload-pack (git push;
 *    git_push_not_allowed). read-write adds POST, PUT, PATCH; full allows
 *    any method.
 *  - An upgrade is allowed only by access: full or an allow rule with
 *    method "*" (a GET rule does not open a WebSocket); else
 *    upgrade_not_allowed. Deny rules apply to upgrades as to the method.
 *  - Mode of a denial: a deny rule on an enforce endpoint is enforced;
 *    when every matching deny rule is on audit endpoints the request is
 *    let through as would_deny if some endpoint allows it, and otherwise
 *    the next rule applies; a request no endpoint allows is enforced when
 *    any of the endpoints says enforce (each of them could have allowed
 *    it), audit when all say audit. No endpoints: denied, enforced.
 */
void l7_decide(const struct policy_endpoint *const *eps, size_t neps,
    const char *method, const char *canon_path,
    const struct l7_query_params *query, bool is_upgrade, const char *file,
    struct l7_decision *out);

/* Scratch for l7_request_decide(), about 19 KiB (keep it off small
 * stacks); it holds nothing the caller must free. */
struct l7_request {
	char path[L7_PATH_MAX + 1];
	struct l7_target target;
	struct l7_query_params query;
};

/*
 * The whole request check: canonicalizes target[0..len) (encoded slashes
 * allowed when any endpoint allows them), parses its query, then
 * l7_decide(). A target that fails either step is denied with
 * request_path_invalid (L7_BY_PATH, path_err and path_err_off set; mode as
 * for a request no endpoint allows). req is scratch (its canonical path
 * and query stay readable afterwards).
 */
void l7_request_decide(const struct policy_endpoint *const *eps, size_t neps,
    const char *method, const char *target, size_t len, bool is_upgrade,
    const char *file, struct l7_request *req, struct l7_decision *out);

/*
 * The endpoints of policy p that allow caller c to reach dest d, in policy
 * order, into eps[0..max); returns how many there are (which may exceed
 * max: then only the first max are stored). Runs decide_traced(), so it
 * agrees with decide() on which endpoints allow the connection.
 */
size_t l7_endpoints_collect(const struct policy *p,
    const struct decide_caller *c, const struct decide_dest *d,
    const struct policy_endpoint **eps, size_t max);

/* The final verdict of a request decision under a daemon-wide override. */
enum verdict l7_verdict(
    const struct l7_decision *d, enum decide_override override);

#endif
