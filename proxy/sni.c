/* SPDX-License-Identifier: ISC */
/*
 * The ClientHello reader: record-layer reassembly (RFC 8446 §5.1), the
 * hello's structure (RFC 8446 §4.1.2) and the server_name (RFC 6066 §3), ALPN
 * (RFC 7301), supported_versions and encrypted_client_hello extensions. What
 * the name means (matching, comparing it with a CONNECT host, IP rules) is
 * left to the caller and the policy.
 *
 * The reader is a byte-at-a-time state machine over the caller's growing
 * buffer, so that every raw byte is read once however the client slices it:
 *
 *   record header (5 bytes, checked as they arrive)
 *     -> fragment bytes: handshake header (4 bytes, checked as they arrive)
 *                        then the body, copied into the scratch buffer
 *     -> next record ... until the body is complete
 *     -> the body is parsed once, from the scratch buffer
 *
 * Errors are decided in stream order, from bytes already seen, so a prefix of
 * the input can only answer NEED_MORE or what the whole input answers.
 */
#include <string.h>

#include "cursor.h"
#include "sni.h"

#define REC_HDR_LEN    5
#define REC_MAX        16384 /* RFC 8446 §5.1: a fragment is at most 2^14 */
#define HS_HDR_LEN     4
#define RANDOM_LEN     32
#define SESSION_ID_MAX 32

/* RFC 8446 §5.1 ContentType. */
#define CT_CHANGE_CIPHER_SPEC 20
#define CT_ALERT              21
#define CT_HANDSHAKE          22
#define CT_APPLICATION_DATA   23

#define HS_CLIENT_HELLO 1

/* Extension types: RFC 6066, RFC 7301, RFC 8446, draft-ietf-tls-esni. */
#define EXT_SERVER_NAME            0
#define EXT_ALPN                   16
#define EXT_SUPPORTED_VERSIONS     43
#define EXT_ENCRYPTED_CLIENT_HELLO 0xfe0d

#define NAME_TYPE_HOST_NAME 0
#define VERSION_TLS13       0x0304

static enum sni_result
fail(struct sni_reader *r, enum sni_result res, size_t off, const char *detail)
{
	r->result = res;
	r->err_off = off;
	r->detail = detail;
	return res;
}

void
sni_reader_init(struct sni_reader *r, uint8_t *scratch, size_t scratch_len)
{
	memset(r, 0, sizeof(*r));
	r->scratch = scratch;
	r->scratch_len = scratch_len;
	r->result = SNI_NEED_MORE;
	r->detail = "";
}

/*
 * Checks one record header byte as it arrives, so that plain HTTP or an
 * SSLv2-style hello is refused on its first byte and a bad length before the
 * client gets to send the fragment.
 */
static enum sni_result
record_header_byte(struct sni_reader *r, uint8_t b)
{
	size_t at = r->rec_off + r->rec_hdr_len;
	struct cursor h;
	uint16_t frag_len;

	r->rec_hdr[r->rec_hdr_len++] = b;
	switch (r->rec_hdr_len) {
	case 1:
		if (b == CT_HANDSHAKE)
			break;
		if (r->rec_off == 0)
			return fail(r, SNI_ERR_NOT_TLS, at,
			    "first byte is not a TLS handshake record (22): plain text or an SSLv2-style hello");
		/* RFC 8446 §5.1: a handshake message must not be
		 * interleaved with other record types. */
		if (b == CT_ALERT)
			return fail(r, SNI_ERR_RECORD, at,
			    "alert record before the ClientHello is complete (RFC 8446 §5.1)");
		if (b == CT_CHANGE_CIPHER_SPEC)
			return fail(r, SNI_ERR_RECORD, at,
			    "change_cipher_spec record before the ClientHello is complete (RFC 8446 §5.1)");
		if (b == CT_APPLICATION_DATA)
			return fail(r, SNI_ERR_RECORD, at,
			    "application_data record before the ClientHello is complete (RFC 8446 §5.1)");
		return fail(r, SNI_ERR_RECORD, at,
		    "record of unknown content type before the ClientHello is complete");
	case 2:
		if (b != 3)
			return fail(r, SNI_ERR_RECORD, at,
			    "record version is not 3.x (RFC 8446 §5.1)");
		break;
	case 3:
		/* 3.0 (SSL 3.0) to 3.3; TLS 1.3 froze the record version at
		 * 3.3 and allows 3.1 for the first hello. */
		if (b > 3)
			return fail(r, SNI_ERR_RECORD, at - 1,
			    "record version above 3.3 (RFC 8446 §5.1: legacy_record_version)");
		break;
	case REC_HDR_LEN:
		h = cursor_make(r->rec_hdr + 3, 2);
		(void)cursor_u16(&h, &frag_len);
		at = r->rec_off + 3;
		if (frag_len == 0)
			return fail(r, SNI_ERR_RECORD, at,
			    "zero-length handshake record (RFC 8446 §5.1)");
		if (frag_len > REC_MAX)
			return fail(r, SNI_ERR_RECORD, at,
			    "record longer than 2^14 bytes (RFC 8446 §5.1)");
		if (r->rec_off + REC_HDR_LEN + frag_len > SNI_RAW_MAX)
			return fail(r, SNI_ERR_TOO_LARGE, at,
			    "ClientHello records exceed the raw cap (SNI_RAW_MAX bytes)");
		r->rec_left = frag_len;
		r->record_count++;
		break;
	}
	return SNI_NEED_MORE;
}

/* Checks one handshake header byte as it arrives (RFC 8446 §4). */
static enum sni_result
handshake_header_byte(struct sni_reader *r, uint8_t b, size_t at)
{
	struct cursor h;
	uint32_t body_len;

	r->hs_hdr[r->hs_hdr_len++] = b;
	if (r->hs_hdr_len == 1 && b != HS_CLIENT_HELLO)
		return fail(r, SNI_ERR_NOT_CLIENT_HELLO, at,
		    "first handshake message is not a ClientHello (type 1)");
	if (r->hs_hdr_len == 2)
		r->hs_len_off = at;
	if (r->hs_hdr_len < HS_HDR_LEN)
		return SNI_NEED_MORE;
	h = cursor_make(r->hs_hdr + 1, 3);
	(void)cursor_u24(&h, &body_len);
	if ((size_t)body_len > SNI_HELLO_MAX - HS_HDR_LEN)
		return fail(r, SNI_ERR_TOO_LARGE, r->hs_len_off,
		    "ClientHello longer than the cap (SNI_HELLO_MAX bytes)");
	if ((size_t)body_len > r->scratch_len)
		return fail(r, SNI_ERR_TOO_LARGE, r->hs_len_off,
		    "ClientHello longer than the reader's scratch buffer");
	r->body_len = body_len;
	return SNI_NEED_MORE;
}

/*
 * Reads records from c until the hello is complete (SNI_OK), an error is
 * certain, or the input runs out (SNI_NEED_MORE). Every byte is read once.
 */
static enum sni_result
read_records(struct sni_reader *r, struct cursor *c)
{
	enum sni_result res;
	const uint8_t *p;
	uint8_t b;
	size_t n;

	for (;;) {
		/* No room left for even a one-byte record: certain now, and
		 * it keeps the promise that SNI_RAW_MAX bytes are enough. */
		if (r->rec_hdr_len == 0 &&
		    r->rec_off + REC_HDR_LEN + 1 > SNI_RAW_MAX)
			return fail(r, SNI_ERR_TOO_LARGE, r->rec_off,
			    "ClientHello records exceed the raw cap (SNI_RAW_MAX bytes)");
		while (r->rec_hdr_len < REC_HDR_LEN) {
			if (!cursor_u8(c, &b))
				return SNI_NEED_MORE;
			r->examined_len++;
			if ((res = record_header_byte(r, b)) != SNI_NEED_MORE)
				return res;
		}
		while (r->rec_left > 0) {
			if (r->hs_hdr_len < HS_HDR_LEN) {
				if (!cursor_u8(c, &b))
					return SNI_NEED_MORE;
				r->examined_len++;
				r->rec_left--;
				res = handshake_header_byte(r, b, c->off - 1);
				if (res != SNI_NEED_MORE)
					return res;
			} else {
				n = r->body_len - r->body_got;
				if (n > r->rec_left)
					n = r->rec_left;
				if (n > cursor_left(c))
					n = cursor_left(c);
				if (n == 0 && r->body_got < r->body_len)
					return SNI_NEED_MORE;
				(void)cursor_bytes(c, n, &p);
				if (n > 0)
					memcpy(r->scratch + r->body_got, p, n);
				r->examined_len += n;
				r->body_got += n;
				r->rec_left -= n;
			}
			if (r->hs_hdr_len < HS_HDR_LEN ||
			    r->body_got < r->body_len)
				continue;
			/* The hello is complete. Another handshake message
			 * cannot follow it in the client's first flight, so
			 * more bytes in this record are garbage that the
			 * server might read differently. */
			if (r->rec_left > 0)
				return fail(r, SNI_ERR_MALFORMED, c->off,
				    "bytes after the ClientHello in the same record");
			r->hello_raw_len = c->off;
			return SNI_OK;
		}
		r->rec_off = c->off;
		r->rec_hdr_len = 0;
	}
}

/*
 * The hello body is parsed from the scratch buffer; errors are reported at
 * raw offsets, found by walking the (already validated) records again.
 */
struct hello_parse {
	struct sni_reader *r;
	const uint8_t *buf;
	struct sni_info *out;
};

/* Offset in the body of cursor c's position (c points into scratch). */
static size_t
body_off(const struct hello_parse *hp, const struct cursor *c)
{
	return (size_t)(c->p - hp->r->scratch) + c->off;
}

static size_t
raw_offset(const struct hello_parse *hp, size_t body_pos)
{
	struct cursor c = cursor_make(hp->buf, hp->r->hello_raw_len);
	size_t msg_off = HS_HDR_LEN + body_pos;
	uint16_t frag_len;

	while (cursor_skip(&c, 3) && cursor_u16(&c, &frag_len)) {
		if (msg_off < frag_len)
			return c.off + msg_off;
		msg_off -= frag_len;
		if (!cursor_skip(&c, frag_len))
			break;
	}
	return hp->r->hello_raw_len;
}

static enum sni_result
bad(struct hello_parse *hp, enum sni_result res, size_t body_pos,
    const char *detail)
{
	return fail(hp->r, res, raw_offset(hp, body_pos), detail);
}

/* RFC 6066 §3: exactly one entry, a host_name, and no IP literal (which we
 * report rather than refuse, see sni.h). */
static enum sni_result
parse_server_name(struct hello_parse *hp, struct cursor *ext)
{
	struct sni_info *out = hp->out;
	struct cursor list;
	const uint8_t *name = NULL, *p;
	size_t n_entries = 0, first_at = 0, second_at = 0, at;
	uint16_t list_len, name_len = 0, l;
	uint8_t name_type = 0, t;
	enum hostname_err e;

	at = body_off(hp, ext);
	if (!cursor_u16(ext, &list_len) || list_len != cursor_left(ext))
		return bad(hp, SNI_ERR_MALFORMED, at,
		    "server_name list length does not match its extension (RFC 6066 §3)");
	if (list_len == 0)
		return bad(hp, SNI_ERR_MALFORMED, at,
		    "empty server_name list (RFC 6066 §3)");
	(void)cursor_sub(ext, list_len, &list);
	while (cursor_left(&list) > 0) {
		at = body_off(hp, &list);
		if (!cursor_u8(&list, &t) || !cursor_u16(&list, &l) ||
		    !cursor_bytes(&list, l, &p))
			return bad(hp, SNI_ERR_MALFORMED, at,
			    "server_name entry overruns its list (RFC 6066 §3)");
		if (n_entries == 0) {
			first_at = at;
			name_type = t;
			name = p;
			name_len = l;
		} else if (n_entries == 1)
			second_at = at;
		n_entries++;
	}
	if (n_entries > 1)
		return bad(hp, SNI_ERR_MULTIPLE_NAMES, second_at,
		    "server_name list has more than one entry (RFC 6066 §3)");
	if (name_type != NAME_TYPE_HOST_NAME)
		return bad(hp, SNI_ERR_BAD_NAME, first_at,
		    "server_name entry is not a host_name (name_type 0, RFC 6066 §3)");
	e = hostname_normalize((const char *)name, name_len, &out->host);
	if (e != HOSTNAME_OK) {
		out->name_err = hp->r->name_err = e;
		return bad(hp, SNI_ERR_BAD_NAME, first_at + 3,
		    "server_name is not a valid host name (see hostname_strerror)");
	}
	out->has_sni = true;
	out->sni_is_ip = out->host.kind != HOSTNAME_NAME;
	return SNI_OK;
}

static bool
alpn_is(const uint8_t *p, size_t n, const char *s)
{
	return n == strlen(s) && memcmp(p, s, n) == 0;
}

/* RFC 7301 §3.1: ProtocolName protocol_name_list<2..2^16-1>, each
 * ProtocolName<1..2^8-1>. */
static enum sni_result
parse_alpn(struct hello_parse *hp, struct cursor *ext)
{
	struct sni_info *out = hp->out;
	struct sni_alpn *a;
	struct cursor list;
	const uint8_t *p;
	uint16_t list_len;
	uint8_t l;
	size_t at;

	at = body_off(hp, ext);
	if (!cursor_u16(ext, &list_len) || list_len != cursor_left(ext))
		return bad(hp, SNI_ERR_MALFORMED, at,
		    "ALPN list length does not match its extension (RFC 7301 §3.1)");
	if (list_len < 2)
		return bad(hp, SNI_ERR_MALFORMED, at,
		    "empty ALPN list (RFC 7301 §3.1)");
	(void)cursor_sub(ext, list_len, &list);
	while (cursor_left(&list) > 0) {
		at = body_off(hp, &list);
		if (!cursor_u8(&list, &l) || !cursor_bytes(&list, l, &p))
			return bad(hp, SNI_ERR_MALFORMED, at,
			    "ALPN protocol name overruns its list (RFC 7301 §3.1)");
		if (l == 0)
			return bad(hp, SNI_ERR_MALFORMED, at,
			    "empty ALPN protocol name (RFC 7301 §3.1)");
		if (out->alpn_count < SNI_ALPN_MAX) {
			a = &out->alpn[out->alpn_count];
			a->len = l;
			memcpy(a->name, p,
			    l < SNI_ALPN_NAME_MAX ? l : SNI_ALPN_NAME_MAX);
		}
		out->alpn_count++;
		if (alpn_is(p, l, "h2"))
			out->alpn_h2 = true;
		if (alpn_is(p, l, "http/1.1"))
			out->alpn_http11 = true;
	}
	out->has_alpn = true;
	return SNI_OK;
}

/* RFC 8446 §4.2.1: ProtocolVersion versions<2..254> in a ClientHello. */
static enum sni_result
parse_supported_versions(struct hello_parse *hp, struct cursor *ext)
{
	uint8_t list_len;
	uint16_t v;
	size_t at = body_off(hp, ext);

	if (!cursor_u8(ext, &list_len) || list_len != cursor_left(ext))
		return bad(hp, SNI_ERR_MALFORMED, at,
		    "supported_versions length does not match its extension (RFC 8446 §4.2.1)");
	if (list_len < 2 || list_len % 2 != 0)
		return bad(hp, SNI_ERR_MALFORMED, at,
		    "supported_versions list empty or of odd length (RFC 8446 §4.2.1)");
	while (cursor_u16(ext, &v))
		if (v == VERSION_TLS13)
			hp->out->tls13_offered = true;
	return SNI_OK;
}

static enum sni_result
parse_extensions(struct hello_parse *hp, struct cursor *c)
{
	/* One bit per extension type: duplicates are found in linear time
	 * however many extensions a hello carries. */
	uint8_t seen[65536 / 8];
	struct cursor ext;
	uint16_t type, ext_len;
	enum sni_result res;
	size_t at;

	memset(seen, 0, sizeof(seen));
	while (cursor_left(c) > 0) {
		at = body_off(hp, c);
		if (!cursor_u16(c, &type) || !cursor_u16(c, &ext_len))
			return bad(hp, SNI_ERR_MALFORMED, at,
			    "extension header truncated at the end of the extensions block");
		if (!cursor_sub(c, ext_len, &ext))
			return bad(hp, SNI_ERR_MALFORMED, at + 2,
			    "extension length overruns the extensions block");
		/* RFC 8446 §4.2: at most one extension of each type. */
		if (seen[type >> 3] & (1u << (type & 7)))
			return bad(hp, SNI_ERR_DUP_EXTENSION, at,
			    "extension type appears twice (RFC 8446 §4.2)");
		seen[type >> 3] |= (uint8_t)(1u << (type & 7));
		hp->out->ext_count++;
		res = SNI_OK;
		switch (type) {
		case EXT_SERVER_NAME:
			res = parse_server_name(hp, &ext);
			break;
		case EXT_ALPN:
			res = parse_alpn(hp, &ext);
			break;
		case EXT_SUPPORTED_VERSIONS:
			res = parse_supported_versions(hp, &ext);
			break;
		case EXT_ENCRYPTED_CLIENT_HELLO:
			/* draft-ietf-tls-esni §5: ECHClientHello starts with
			 * its type; its contents are not ours to judge. */
			if (ext_len == 0)
				return bad(hp, SNI_ERR_MALFORMED, at + 2,
				    "empty encrypted_client_hello extension (draft-ietf-tls-esni §5)");
			hp->out->has_ech = true;
			break;
		}
		if (res != SNI_OK)
			return res;
	}
	return SNI_OK;
}

/* RFC 8446 §4.1.2 (and RFC 5246 §7.4.1.2, where extensions may be absent). */
static enum sni_result
parse_hello(struct sni_reader *r, const uint8_t *buf, struct sni_info *out)
{
	struct hello_parse hp = {r, buf, out};
	struct cursor c = cursor_make(r->scratch, r->body_len), exts;
	uint16_t u16;
	uint8_t u8;
	size_t at;

	memset(out, 0, sizeof(*out));
	r->examined_len += r->body_len;
	if (!cursor_u16(&c, &out->legacy_version) ||
	    !cursor_skip(&c, RANDOM_LEN))
		return bad(&hp, SNI_ERR_MALFORMED, 0,
		    "ClientHello shorter than legacy_version and random");
	at = body_off(&hp, &c);
	if (!cursor_u8(&c, &u8) || !cursor_skip(&c, u8))
		return bad(&hp, SNI_ERR_MALFORMED, at,
		    "legacy_session_id overruns the ClientHello");
	if (u8 > SESSION_ID_MAX)
		return bad(&hp, SNI_ERR_MALFORMED, at,
		    "legacy_session_id longer than 32 bytes (RFC 8446 §4.1.2)");
	at = body_off(&hp, &c);
	if (!cursor_u16(&c, &u16) || !cursor_skip(&c, u16))
		return bad(&hp, SNI_ERR_MALFORMED, at,
		    "cipher_suites overruns the ClientHello");
	if (u16 < 2 || u16 % 2 != 0)
		return bad(&hp, SNI_ERR_MALFORMED, at,
		    "cipher_suites empty or of odd length (RFC 8446 §4.1.2)");
	at = body_off(&hp, &c);
	if (!cursor_u8(&c, &u8) || !cursor_skip(&c, u8))
		return bad(&hp, SNI_ERR_MALFORMED, at,
		    "legacy_compression_methods overruns the ClientHello");
	if (u8 < 1)
		return bad(&hp, SNI_ERR_MALFORMED, at,
		    "legacy_compression_methods empty (RFC 8446 §4.1.2)");
	/* Old clients end here: no extensions, hence no server_name. */
	if (cursor_left(&c) > 0) {
		at = body_off(&hp, &c);
		if (!cursor_u16(&c, &u16))
			return bad(&hp, SNI_ERR_MALFORMED, at,
			    "one stray byte where the extensions block would start");
		if (u16 > cursor_left(&c))
			return bad(&hp, SNI_ERR_MALFORMED, at,
			    "extensions block overruns the ClientHello");
		if (u16 < cursor_left(&c))
			return bad(&hp, SNI_ERR_MALFORMED, at + 2 + u16,
			    "bytes after the extensions block inside the ClientHello");
		(void)cursor_sub(&c, u16, &exts);
		if (parse_extensions(&hp, &exts) != SNI_OK)
			return r->result;
	}
	out->hello_len = HS_HDR_LEN + r->body_len;
	out->hello_raw_len = r->hello_raw_len;
	out->record_count = r->record_count;
	r->result = SNI_OK;
	return SNI_OK;
}

enum sni_result
sni_reader_feed(struct sni_reader *r, const uint8_t *buf, size_t len,
    struct sni_info *out, size_t *err_off)
{
	struct cursor c;

	/* After a final result nothing is read again, not even the scratch
	 * buffer, which the caller may already have released. */
	if (r->result == SNI_NEED_MORE && len > r->pos) {
		c = cursor_make(buf, len);
		c.off = r->pos;
		if (read_records(r, &c) == SNI_OK)
			(void)parse_hello(r, buf, out);
		r->pos = c.off;
	}
	if (r->result == SNI_OK || r->result == SNI_NEED_MORE) {
		if (err_off != NULL)
			*err_off = 0;
		return r->result;
	}
	out->name_err = r->name_err;
	if (err_off != NULL)
		*err_off = r->err_off;
	return r->result;
}

const char *
sni_strerror(enum sni_result res)
{
	switch (res) {
	case SNI_OK:
		return "ok";
	case SNI_NEED_MORE:
		return "ClientHello incomplete";
	case SNI_ERR_NOT_TLS:
		return "not TLS: the client did not start with a TLS handshake record";
	case SNI_ERR_RECORD:
		return "invalid TLS record before the ClientHello was complete";
	case SNI_ERR_NOT_CLIENT_HELLO:
		return "the first TLS handshake message is not a ClientHello";
	case SNI_ERR_MALFORMED:
		return "malformed ClientHello: lengths do not add up";
	case SNI_ERR_DUP_EXTENSION:
		return "ClientHello repeats an extension";
	case SNI_ERR_MULTIPLE_NAMES:
		return "ClientHello server_name lists more than one name";
	case SNI_ERR_BAD_NAME:
		return "ClientHello server_name is not a valid host name";
	case SNI_ERR_TOO_LARGE:
		return "ClientHello larger than the cap";
	}
	return "unknown ClientHello reader result";
}

const char *
sni_reader_detail(const struct sni_reader *r)
{
	return r->detail;
}
