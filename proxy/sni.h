/* SPDX-License-Identifier: ISC */
/*
 * The TLS ClientHello reader: reassembles the first handshake message of a
 * client's byte stream across TCP segments and TLS records, checks its whole
 * structure, and reports the server_name and the few other fields egressd
 * decides on. It only reads the caller's bytes (which the caller forwards
 * unchanged afterwards); buffering, deadlines and the policy decision are the
 * caller's. Pure: no allocation, logging, errno or libevent.
 */
#ifndef EGRESSD_SNI_H
#define EGRESSD_SNI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hostname.h"

/*
 * Largest accepted ClientHello handshake message, its 4-byte header
 * included (SECURITY-CASES.md invariant 6: at least 16 KiB). Post-quantum
 * hellos are about 2 KiB. A scratch buffer of this many bytes holds any
 * acceptable hello.
 */
#define SNI_HELLO_MAX 16384
/*
 * Largest number of raw record-layer bytes, from the first byte up to the end
 * of the record that completes the hello. One-byte records inflate a hello
 * six times; past this the hello is refused as too large. A caller that has
 * buffered SNI_RAW_MAX bytes always has a final answer.
 */
#define SNI_RAW_MAX 65536
/* ALPN protocol names copied into struct sni_info, and bytes kept of each. */
#define SNI_ALPN_MAX      8
#define SNI_ALPN_NAME_MAX 32

enum sni_result {
	SNI_OK,
	SNI_NEED_MORE,
	SNI_ERR_NOT_TLS, /* first byte is not a handshake record */
	SNI_ERR_RECORD,  /* bad record header, or other records inside */
	SNI_ERR_NOT_CLIENT_HELLO, /* first handshake message is another type */
	SNI_ERR_MALFORMED,        /* a length that does not add up */
	SNI_ERR_DUP_EXTENSION,    /* an extension type appears twice */
	SNI_ERR_MULTIPLE_NAMES,   /* server_name list has several entries */
	SNI_ERR_BAD_NAME,         /* the one server_name entry is unusable */
	SNI_ERR_TOO_LARGE,        /* past SNI_HELLO_MAX or SNI_RAW_MAX */
};

/* One offered ALPN protocol (RFC 7301 §3.1): arbitrary bytes, 1..255. */
struct sni_alpn {
	uint8_t len;                     /* length on the wire */
	uint8_t name[SNI_ALPN_NAME_MAX]; /* its first min(len, MAX) bytes */
};

struct sni_info {
	/*
	 * server_name (RFC 6066 §3), normalized by hostname_normalize. An IP
	 * literal, which RFC 6066 forbids but clients send, is reported with
	 * host.kind HOSTNAME_IPV4/IPV6 and sni_is_ip set: the policy must then
	 * apply IP rules only. Without the extension has_sni is false and host
	 * is empty.
	 */
	bool has_sni;
	bool sni_is_ip;
	struct hostname host;
	/* Why the name was refused, for SNI_ERR_BAD_NAME (else HOSTNAME_OK). */
	enum hostname_err name_err;

	uint16_t legacy_version; /* ClientHello.legacy_version */
	bool tls13_offered;      /* supported_versions lists 0x0304 */
	/*
	 * encrypted_client_hello (0xfe0d) is present. The visible (outer) SNI
	 * is the one reported and decided on; a real ECH offer cannot be told
	 * from Chrome's GREASE one.
	 */
	bool has_ech;

	bool has_alpn;
	bool alpn_h2;      /* "h2" offered */
	bool alpn_http11;  /* "http/1.1" offered */
	size_t alpn_count; /* protocols offered; the first SNI_ALPN_MAX: */
	struct sni_alpn alpn[SNI_ALPN_MAX];

	size_t ext_count;     /* extensions in the hello */
	size_t record_count;  /* records that carried the hello */
	size_t hello_len;     /* handshake message bytes, header included */
	size_t hello_raw_len; /* raw bytes from the start to the end of the
			       * record that completed the hello */
};

/*
 * Caller-owned reader state; all fields are private except examined_len.
 * One reader per connection; it holds no pointer into the caller's data,
 * only offsets, so the caller may move its buffer between calls.
 */
struct sni_reader {
	uint8_t *scratch; /* the handshake body is reassembled here */
	size_t scratch_len;
	size_t pos;      /* raw offset of the next unread byte */
	size_t rec_off;  /* raw offset of the current record header */
	size_t rec_left; /* fragment bytes of that record still unread */
	size_t record_count;
	uint8_t rec_hdr[5];
	uint8_t rec_hdr_len;
	uint8_t hs_hdr[4];
	uint8_t hs_hdr_len;
	size_t hs_len_off; /* raw offset of the handshake length field */
	size_t body_len;   /* declared ClientHello body length */
	size_t body_got;
	size_t hello_raw_len;
	enum sni_result result; /* SNI_NEED_MORE until final, then sticky */
	enum hostname_err name_err;
	size_t err_off;
	const char *detail;
	size_t examined_len; /* bytes read so far, input and scratch (stats) */
};

/*
 * Prepares r. scratch[0..scratch_len) receives the reassembled hello and
 * must stay intact until sni_reader_feed() gives a final result;
 * SNI_HELLO_MAX bytes hold any acceptable hello, a smaller scratch lowers the
 * cap (a hello that does not fit is SNI_ERR_TOO_LARGE). *out of the final
 * call holds copies, no pointers into scratch or the caller's buffer.
 */
void sni_reader_init(
    struct sni_reader *r, uint8_t *scratch, size_t scratch_len);

/*
 * Reads the ClientHello at the start of buf[0..len), which is everything the
 * client has sent so far: between calls buf may move but its contents only
 * grow at the end. Each call reads only the bytes it has not seen, so a
 * hello arriving one byte per segment (or one byte per record) costs time
 * linear in its size.
 *
 * Returns SNI_NEED_MORE until the hello is complete or an error is certain,
 * then a final result. A prefix of the input never yields a final result
 * different from the whole input's; once len reaches SNI_RAW_MAX the result
 * is final. On SNI_OK *out describes the hello, which occupies
 * buf[0..out->hello_raw_len); later bytes are not read (e.g. 0-RTT data).
 * On an error *err_off (if err_off is not NULL) is the offset in buf of the
 * offending byte (at most len), out->name_err says why a name was refused,
 * and the rest of *out is unspecified.
 *
 * Later calls repeat the final result and its offset without reading buf or
 * the scratch buffer (which may then be released); after SNI_OK they leave
 * *out as it is. buf and out must not be NULL.
 */
enum sni_result sni_reader_feed(struct sni_reader *r, const uint8_t *buf,
    size_t len, struct sni_info *out, size_t *err_off);

/* A short English description of a result. */
const char *sni_strerror(enum sni_result res);

/*
 * The exact check that failed, citing the RFC where one decides (a static
 * string, "" while no error): for the audit log next to sni_strerror().
 */
const char *sni_reader_detail(const struct sni_reader *r);

#endif
