/* SPDX-License-Identifier: ISC */
/*
 * Strict HTTP/1.1 message heads (RFC 9112): request and status lines, header
 * fields, message body framing, chunked bodies, and the forward proxy's
 * origin-form rewrite. Leaves decisions, I/O, timeouts and the reply sent to
 * a client to the listeners; every parser here is pure (no allocation, no
 * logging) and only the rewrite writes into a caller's strbuf.
 */
#ifndef EGRESSD_HTTP_PARSE_H
#define EGRESSD_HTTP_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hostname.h"

struct strbuf;

#define HTTP_MAX_HEADERS            100  /* header (and trailer) fields */
#define HTTP_MAX_TARGET_LEN         8192 /* request-target bytes */
#define HTTP_MAX_METHOD_LEN         32
#define HTTP_MAX_CONNECTION_OPTIONS 16 /* over all Connection headers */
#define HTTP_CONTENT_LENGTH_MAX     (UINT64_C(1) << 53)
#define HTTP_CHUNK_SIZE_MAX_DIGITS  16
#define HTTP_CHUNK_EXT_MAX_LEN      1024 /* per chunk-size line */
#define HTTP_TRAILER_MAX_LEN        8192 /* whole trailer section */

enum http_result {
	HTTP_OK,        /* complete (for http_chunked_feed: message done) */
	HTTP_NEED_MORE, /* valid so far, incomplete */
	/* Framing of the head itself. */
	HTTP_ERR_HEAD_TOO_LARGE,
	HTTP_ERR_BARE_LF,
	HTTP_ERR_BARE_CR,
	HTTP_ERR_LEADING_EMPTY_LINE,
	/* Request line. */
	HTTP_ERR_BAD_METHOD,
	HTTP_ERR_LOWERCASE_METHOD,
	HTTP_ERR_BAD_REQUEST_LINE,
	HTTP_ERR_REQUEST_LINE_WHITESPACE,
	HTTP_ERR_BAD_VERSION,
	HTTP_ERR_UNSUPPORTED_VERSION,
	HTTP_ERR_TARGET_TOO_LONG,
	HTTP_ERR_BAD_TARGET,
	HTTP_ERR_FRAGMENT,
	HTTP_ERR_USERINFO,
	HTTP_ERR_UNSUPPORTED_SCHEME,
	HTTP_ERR_HTTPS_ABSOLUTE,
	HTTP_ERR_CONNECT_TARGET,
	HTTP_ERR_ASTERISK_NOT_OPTIONS,
	/* Authorities: request-target and Host. */
	HTTP_ERR_BAD_HOST,
	HTTP_ERR_MISSING_PORT,
	HTTP_ERR_BAD_PORT,
	/* Status line. */
	HTTP_ERR_BAD_STATUS_LINE,
	/* Header fields. */
	HTTP_ERR_OBS_FOLD,
	HTTP_ERR_HEADER_NAME_WHITESPACE,
	HTTP_ERR_BAD_HEADER_NAME,
	HTTP_ERR_BAD_HEADER_VALUE,
	HTTP_ERR_TOO_MANY_HEADERS,
	HTTP_ERR_MISSING_HOST,
	HTTP_ERR_DUPLICATE_HOST,
	HTTP_ERR_HOST_MISMATCH,
	HTTP_ERR_BAD_CONTENT_LENGTH,
	HTTP_ERR_DUPLICATE_CONTENT_LENGTH,
	HTTP_ERR_UNSUPPORTED_TRANSFER_ENCODING,
	HTTP_ERR_DUPLICATE_TRANSFER_ENCODING,
	HTTP_ERR_CONTENT_LENGTH_AND_TRANSFER_ENCODING,
	HTTP_ERR_TRANSFER_ENCODING_HTTP10,
	HTTP_ERR_CONNECT_BODY,
	HTTP_ERR_BAD_CONNECTION,
	HTTP_ERR_TOO_MANY_CONNECTION_OPTIONS,
	HTTP_ERR_CONNECTION_NAMES_FRAMING,
	HTTP_ERR_BAD_UPGRADE,
	HTTP_ERR_UNSUPPORTED_EXPECT,
	/* Chunked bodies. */
	HTTP_ERR_BAD_CHUNK_SIZE,
	HTTP_ERR_BAD_CHUNK_EXT,
	HTTP_ERR_CHUNK_EXT_TOO_LONG,
	HTTP_ERR_BAD_CHUNK_END,
	HTTP_ERR_TRAILER_TOO_LARGE,
};
#define HTTP_RESULT_COUNT (HTTP_ERR_TRAILER_TOO_LARGE + 1)

enum http_method {
	HTTP_METHOD_OTHER, /* any other uppercase token: see method_span */
	HTTP_METHOD_GET,
	HTTP_METHOD_HEAD,
	HTTP_METHOD_POST,
	HTTP_METHOD_PUT,
	HTTP_METHOD_PATCH,
	HTTP_METHOD_DELETE,
	HTTP_METHOD_OPTIONS,
	HTTP_METHOD_TRACE,
	HTTP_METHOD_CONNECT,
};

/* RFC 9112 §3.2. */
enum http_target_form {
	HTTP_TARGET_ORIGIN,    /* /path?query */
	HTTP_TARGET_ABSOLUTE,  /* http://host[:port]/path?query */
	HTTP_TARGET_AUTHORITY, /* host:port, CONNECT only */
	HTTP_TARGET_ASTERISK,  /* *, OPTIONS only */
};

enum http_version { HTTP_VERSION_1_0, HTTP_VERSION_1_1 };

/* How the message body is delimited (RFC 9112 §6.3). */
enum http_framing {
	HTTP_FRAMING_NONE,           /* no body */
	HTTP_FRAMING_CONTENT_LENGTH, /* content_length bytes */
	HTTP_FRAMING_CHUNKED,        /* run http_chunked_feed over it */
	HTTP_FRAMING_CLOSE,  /* response only: until the server closes */
	HTTP_FRAMING_TUNNEL, /* 2xx to CONNECT: raw bytes both ways */
	HTTP_FRAMING_SWITCH, /* 101: the Upgrade protocol follows */
};

/* Bytes [off, off + len) of the caller's buffer. */
struct http_span {
	size_t off, len;
};

struct http_header {
	struct http_span name;  /* a token, case as received */
	struct http_span value; /* OWS trimmed; may be empty */
	/* RFC 9110 §7.6.1: Connection, every field it lists, Keep-Alive,
	 * Proxy-Connection, Proxy-Authorization, TE, Trailer, Upgrade. */
	bool hop_by_hop;
};

struct http_request {
	enum http_method method;
	struct http_span method_span;
	enum http_target_form form;
	struct http_span target;
	enum http_version version;
	/* ABSOLUTE and AUTHORITY forms: the normalized target host and its
	 * port (CONNECT: explicit; http://: 80 unless given). */
	struct hostname host;
	uint16_t port;
	/* ORIGIN: the whole target; ABSOLUTE: what follows the authority,
	 * len 0 when empty. Use http_request_path() to read it. */
	struct http_span path;
	size_t nheaders;
	struct http_header headers[HTTP_MAX_HEADERS];
	/* The Host header, normalized; host_hdr_port is 0 when it has none
	 * (the default then comes from the connection: 80, or 443 in TLS). */
	bool has_host;
	struct hostname host_hdr;
	uint16_t host_hdr_port;
	enum http_framing framing; /* NONE, CONTENT_LENGTH or CHUNKED */
	uint64_t content_length;
	bool keep_alive;
	bool expect_continue; /* HTTP/1.1 "Expect: 100-continue" */
	bool upgrade;         /* Upgrade listed in Connection, HTTP/1.1 */
	struct http_span upgrade_proto; /* first protocol, e.g. websocket */
	/* Why the host was refused when the result is HTTP_ERR_BAD_HOST. */
	enum hostname_err host_err;
	size_t head_len; /* through the final CRLF CRLF */
};

struct http_response {
	enum http_version version;
	unsigned status; /* 100..599 */
	struct http_span reason;
	size_t nheaders;
	struct http_header headers[HTTP_MAX_HEADERS];
	enum http_framing framing;
	uint64_t content_length;
	bool keep_alive;
	size_t head_len;
};

/*
 * Incremental end-of-head finder, for callers that re-try as bytes arrive:
 * every call examines only the bytes added since the previous one, so
 * feeding a head one byte at a time costs O(length) in total. Besides
 * finding the empty line that ends the head it enforces what is decidable
 * byte by byte: CRLF only (bare CR or LF is an error), no control
 * character other than HTAB, no empty first line, and the size cap (the
 * head, CRLF CRLF included, must fit in max_head_len bytes).
 */
enum http_head_kind { HTTP_HEAD_REQUEST, HTTP_HEAD_RESPONSE };

struct http_head_scan {
	size_t off;     /* bytes of the buffer already examined */
	size_t scanned; /* bytes examined over all calls: a cost meter */
	enum http_result result; /* sticky once not NEED_MORE */
	size_t end;              /* head_len or error offset, once known */
	unsigned char kind;      /* enum http_head_kind */
	unsigned char spaces;    /* SPs seen on the start line, up to 2 */
	bool start_line, line_start, in_value, cr, cr_empty;
};

void http_head_scan_init(struct http_head_scan *st, enum http_head_kind kind);

/*
 * Scans buf[0..len), a buffer that only ever grows between calls (the bytes
 * seen before must be unchanged). Returns HTTP_OK with *head_len set once
 * the head is complete, HTTP_NEED_MORE, or an error with *err_off at the
 * offending byte; OK and errors are sticky. Either pointer may be NULL.
 */
enum http_result http_head_scan(struct http_head_scan *st, const uint8_t *buf,
    size_t len, size_t max_head_len, size_t *head_len, size_t *err_off);

/*
 * Parses the request head at the start of buf[0..len) (bytes past the head,
 * a body or a pipelined request, are not looked at). Returns HTTP_NEED_MORE
 * until the head is complete, HTTP_ERR_HEAD_TOO_LARGE once len reaches
 * max_head_len without one, HTTP_OK with *req filled, or the first error
 * with *err_off (may be NULL) at the offending byte. The answer for any
 * prefix of an input is NEED_MORE or the answer for the whole input.
 * Linear in the head's length; re-calling it for every arriving byte is
 * quadratic, so gate it with http_head_scan(). Checks, beyond RFC 9112
 * syntax: an uppercase method; exactly one SP between request-line parts;
 * HTTP/1.0 or HTTP/1.1; CONNECT in authority-form with a port; absolute
 * form only for http:// (https:// is refused: use CONNECT); no userinfo or
 * fragment; every host through hostname_normalize(); exactly one Host in
 * HTTP/1.1, agreeing with an absolute or authority target (a CONNECT Host
 * without a port agrees on any port); one Content-Length at most;
 * Transfer-Encoding only "chunked", never with Content-Length or in
 * HTTP/1.0; no body on CONNECT; no Connection option naming Host,
 * Content-Length or Transfer-Encoding; Expect only "100-continue"; an
 * absolute target with a query has a path ("http://a/?q", not
 * "http://a?q"); at most HTTP_MAX_HEADERS fields.
 */
enum http_result http_parse_request(const uint8_t *buf, size_t len,
    size_t max_head_len, struct http_request *req, size_t *err_off);

/*
 * Parses a response head, like http_parse_request(). request_method is the
 * method of the request it answers, for framing (RFC 9112 §6.3): none for
 * HEAD, 1xx, 204 and 304; SWITCH for 101; TUNNEL for 2xx to CONNECT; else
 * chunked, Content-Length, or until close. The same header rules apply
 * (one Content-Length, only "chunked", not both, not in HTTP/1.0).
 */
enum http_result http_parse_response(const uint8_t *buf, size_t len,
    size_t max_head_len, enum http_method request_method,
    struct http_response *resp, size_t *err_off);

/*
 * Parses an authority (RFC 3986 §3.2): reg-name, IPv4 or [IPv6], then an
 * optional ":port" of 1 to 5 decimal digits, 1..65535, no sign, no leading
 * zero, not empty. The host goes through hostname_normalize(). Without a
 * port, port_required gives HTTP_ERR_MISSING_PORT, else *port is
 * default_port. Userinfo gives HTTP_ERR_USERINFO. Used for CONNECT targets,
 * absolute-form authorities and Host headers.
 */
enum http_result http_parse_authority(const char *s, size_t len,
    bool port_required, uint16_t default_port, struct hostname *host,
    uint16_t *port);

/*
 * Resumable chunked-body scanner (RFC 9112 §7.1). It only finds where the
 * message ends: the caller forwards the bytes unchanged. Sizes are 1 to 16
 * hex digits; extensions must follow the grammar and stay under
 * HTTP_CHUNK_EXT_MAX_LEN per line; trailers follow the header rules, at
 * most HTTP_TRAILER_MAX_LEN bytes and HTTP_MAX_HEADERS fields.
 */
struct http_chunked {
	uint64_t left;   /* data bytes left in the chunk, or its size */
	uint32_t count;  /* extension or trailer bytes */
	uint16_t fields; /* trailer fields */
	uint8_t state;
	uint8_t digits;
	uint8_t err; /* enum http_result once failed */
};

void http_chunked_init(struct http_chunked *st);

/*
 * Feeds p[0..len). HTTP_NEED_MORE: all of it consumed, the message goes on.
 * HTTP_OK: the first *consumed bytes end the message (last chunk, trailers
 * and final CRLF); the rest belongs to whatever follows. An error: *consumed
 * is the offset of the offending byte. Done and failed states are sticky
 * (later calls consume nothing and return the same result).
 */
enum http_result http_chunked_feed(
    struct http_chunked *st, const uint8_t *p, size_t len, size_t *consumed);

/*
 * The path to send upstream in origin-form: the target for ORIGIN, what
 * follows the authority for ABSOLUTE ("/" when empty; "*" for an OPTIONS
 * with neither path nor query, RFC 9112 §3.2.4), "*" for ASTERISK, NULL for
 * AUTHORITY. Points into buf or at a static string.
 */
const char *http_request_path(
    const struct http_request *req, const uint8_t *buf, size_t *len);

/* The header named name (case-insensitive), the first one, or NULL. */
const struct http_header *http_find_header(const struct http_header *headers,
    size_t n, const uint8_t *buf, const char *name);

/*
 * Appends the request head as the forward proxy sends it upstream:
 * "METHOD path HTTP/1.1" (path: target[0..target_len) when target is not
 * NULL, e.g. the canonical form a decision was made on; else the path as
 * received), for absolute-form a Host built from the target
 * (RFC 9112 §3.2.2: the received Host is dropped), the other headers minus
 * hop-by-hop ones (and Expect from an HTTP/1.0 client), "Connection:
 * keep-alive" or "close" from req->keep_alive, and the empty line. False
 * when the head has no Host to send (CONNECT, or HTTP/1.0 origin-form
 * without Host) or out's cap truncated it. Does not log.
 */
bool http_request_write_origin(const struct http_request *req,
    const uint8_t *buf, const char *target, size_t target_len,
    struct strbuf *out);

/* A precise English description of r, for the 4xx body and the log. */
const char *http_strerror(enum http_result r);

/*
 * The status to answer a client whose request failed with r (400, 414,
 * 417, 431, 501, 505); 0 for HTTP_OK and HTTP_NEED_MORE. A malformed
 * response from upstream is answered with 502 whatever r is (and
 * HTTP_ERR_BAD_STATUS_LINE, which only responses produce, maps to 502).
 */
int http_error_status(enum http_result r);

/* "GET", ... ; NULL for HTTP_METHOD_OTHER. */
const char *http_method_name(enum http_method m);

#endif
