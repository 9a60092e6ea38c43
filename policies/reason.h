/* SPDX-License-Identifier: ISC */
/*
 * The stable reason codes of every decision egressd records: one table shared
 * by the policy engine, the proxy, the audit log and egressctl, so a code
 * means the same thing everywhere (docs/policy.md lists them).
 */
#ifndef EGRESSD_REASON_H
#define EGRESSD_REASON_H

enum reason_severity { SEV_INFO, SEV_LOW, SEV_MED, SEV_HIGH };

/* X(ENUM, "code", severity, "what it means") */
#define REASON_TABLE(X) \
	X(ALLOWED, "allowed", SEV_INFO, \
	    "a policy block allows this binary to reach this host and port") \
	X(NO_MATCHING_POLICY, "no_matching_policy", SEV_MED, \
	    "no policy block has an endpoint for this host and port") \
	X(PORT_NOT_ALLOWED, "port_not_allowed", SEV_MED, \
	    "the host is in the policy, but not on this port") \
	X(BINARY_NOT_ALLOWED, "binary_not_allowed", SEV_MED, \
	    "the endpoint is in the policy, but not for this binary") \
	X(BINARY_SYMLINK, "binary_symlink", SEV_MED, \
	    "the policy names a symlink; the kernel reports the real executable, which the policy does not list") \
	X(BINARY_IS_SCRIPT, "binary_is_script", SEV_MED, \
	    "the policy names a script; its interpreter makes the connection") \
	X(BINARY_HASH_MISMATCH, "binary_hash_mismatch", SEV_HIGH, \
	    "the executable's SHA-256 differs from the one pinned in the policy") \
	X(BINARY_HASH_UNAVAILABLE, "binary_hash_unavailable", SEV_MED, \
	    "the policy pins a SHA-256 but the executable could not be hashed") \
	X(CLIENT_NOT_ALLOWED, "client_not_allowed", SEV_MED, \
	    "the endpoint is in the policy, but not for this source address") \
	X(EXPLICIT_DENY, "explicit_deny", SEV_MED, \
	    "a deny block matches this binary, host and port") \
	X(IP_NOT_ALLOWED, "ip_not_allowed", SEV_MED, \
	    "the destination is an IP address and no IP rule covers it (host names never match IP literals)") \
	X(RAW_TCP_NOT_ALLOWED, "raw_tcp_not_allowed", SEV_MED, \
	    "the connection carries neither TLS nor HTTP and the matching endpoint does not allow raw TCP (protocol: tcp)") \
	X(INVALID_HOST, "invalid_host", SEV_MED, \
	    "the destination host name is malformed") \
	X(IDENTITY_NO_SOCKET, "identity_no_socket", SEV_HIGH, \
	    "the client socket was not found by sock_diag") \
	X(IDENTITY_NO_OWNER, "identity_no_owner", SEV_MED, \
	    "no process holds the client socket any more (the caller exited)") \
	X(IDENTITY_AMBIGUOUS, "identity_ambiguous", SEV_HIGH, \
	    "several processes with different executables hold the client socket") \
	X(IDENTITY_UNREADABLE, "identity_unreadable", SEV_HIGH, \
	    "the owning process could not be inspected in /proc") \
	X(IDENTITY_PID_REUSED, "identity_pid_reused", SEV_HIGH, \
	    "the owning process changed while it was inspected") \
	X(IDENTITY_FAILED, "identity_failed", SEV_HIGH, \
	    "the caller could not be identified") \
	X(BAD_REQUEST, "bad_request", SEV_LOW, \
	    "the request could not be parsed") \
	X(SNI_MISMATCH, "sni_mismatch", SEV_HIGH, \
	    "the TLS server name differs from the requested host") \
	X(TLS_HELLO_INVALID, "tls_hello_invalid", SEV_HIGH, \
	    "the TLS ClientHello is malformed or ambiguous") \
	X(TLS_HELLO_TOO_LARGE, "tls_hello_too_large", SEV_MED, \
	    "the TLS ClientHello exceeds the size limit") \
	X(NO_SERVER_NAME, "no_server_name", SEV_MED, \
	    "the connection names no host (no SNI, no Host) and no IP rule covers its destination") \
	X(DNS_FAILED, "dns_failed", SEV_LOW, \
	    "the host name could not be resolved") \
	X(NON_PUBLIC_ADDRESS, "non_public_address", SEV_HIGH, \
	    "the name resolves only to non-public addresses that the policy does not open") \
	X(DESTINATION_MISMATCH, "destination_mismatch", SEV_HIGH, \
	    "the original destination address is not among the validated answers for the name") \
	X(CONNECT_FAILED, "connect_failed", SEV_LOW, \
	    "the upstream connection failed") \
	X(TIMEOUT, "timeout", SEV_LOW, "a phase of the connection timed out") \
	X(CONN_LIMIT, "conn_limit", SEV_MED, \
	    "the connection limit was reached") \
	X(UPSTREAM_TLS_FAILED, "upstream_tls_failed", SEV_HIGH, \
	    "the upstream server's certificate could not be verified") \
	X(METHOD_NOT_ALLOWED, "method_not_allowed", SEV_MED, \
	    "the endpoint's access level does not allow this request") \
	X(POLICY_REVOKED, "policy_revoked", SEV_MED, \
	    "a policy reload no longer allows this connection") \
	X(SELF_CONNECTION, "self_connection", SEV_HIGH, \
	    "the destination is one of egressd's own listeners") \
	X(PROTOCOL_NOT_ALLOWED, "protocol_not_allowed", SEV_MED, \
	    "the protocol on this connection is not allowed by the endpoint") \
	X(DNS_NAME_NOT_ALLOWED, "dns_name_not_allowed", SEV_MED, \
	    "the sandbox looked up a name no policy mentions; refused without asking upstream") \
	X(DNS_TYPE_NOT_ALLOWED, "dns_type_not_allowed", SEV_LOW, \
	    "the sandbox asked for a record type other than A or AAAA; refused") \
	X(HOST_MISMATCH, "host_mismatch", SEV_HIGH, \
	    "an intercepted request names another host than the one its connection was decided for") \
	X(REQUEST_NOT_ALLOWED, "request_not_allowed", SEV_MED, \
	    "the endpoint allows requests by rules only, and none matches this method, path and query") \
	X(REQUEST_DENIED, "request_denied", SEV_MED, \
	    "a deny rule of the endpoint matches this request") \
	X(GIT_PUSH_NOT_ALLOWED, "git_push_not_allowed", SEV_MED, \
	    "a git push (git-receive-pack) on an endpoint with access: read-only") \
	X(UPGRADE_NOT_ALLOWED, "upgrade_not_allowed", SEV_MED, \
	    "a protocol upgrade (WebSocket) needs access: full or a rule with method '*'") \
	X(REQUEST_PATH_INVALID, "request_path_invalid", SEV_MED, \
	    "the request path is malformed or ambiguous (encoded slash, dot segments above the root, bad escapes)")

enum reason {
#define REASON_ENUM(e, code, sev, text) REASON_##e,
	REASON_TABLE(REASON_ENUM)
#undef REASON_ENUM
	    REASON__COUNT
};

/* The stable code ("no_matching_policy"), never NULL. */
const char *reason_code(enum reason r);
/* A one-line English explanation of the code. */
const char *reason_text(enum reason r);
enum reason_severity reason_severity(enum reason r);
/* "LOW", "MED", "HIGH" or "INFO". */
const char *reason_severity_name(enum reason_severity s);
/* Looks up a code string; returns REASON__COUNT when unknown. */
enum reason reason_from_code(const char *code);

#endif
