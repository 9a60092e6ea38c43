/* SPDX-License-Identifier: ISC */
/*
 * The DNS wire format as egressd speaks it (RFC 1035 §4, EDNS0 per RFC 6891,
 * TCP framing per RFC 7766, AAAA per RFC 3596): parsing queries, building the
 * policy DNS server's replies, and checking upstream replies. Pure: no
 * allocation, no I/O; policy, hostname normalization (hostname.h), caching and
 * address classification are the callers' business.
 */
#ifndef EGRESSD_DNS_MSG_H
#define EGRESSD_DNS_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"

#define DNS_MSG_MAX         65535 /* RFC 7766 §8: 2-byte length prefix */
#define DNS_HEADER_LEN      12    /* RFC 1035 §4.1.1 */
#define DNS_NAME_MAX        253   /* presentation form, no trailing dot */
#define DNS_NAME_WIRE_MAX   255   /* RFC 1035 §3.1, length octets included */
#define DNS_LABEL_MAX       63    /* RFC 1035 §3.1 */
#define DNS_NAME_HOPS_MAX   127   /* compression pointers followed per name */
#define DNS_QUESTION_MAX    (DNS_NAME_WIRE_MAX + 4) /* name, QTYPE, QCLASS */
#define DNS_OPT_LEN         11   /* an OPT RR without options */
#define DNS_UDP_MAX         512  /* RFC 1035 §4.2.1, without EDNS */
#define DNS_EDNS_MAX        1232 /* advertised and honored (Flag Day 2020) */
#define DNS_CNAME_CHAIN_MAX 8    /* CNAMEs followed in one reply */

#define DNS_TYPE_A     1
#define DNS_TYPE_NS    2
#define DNS_TYPE_CNAME 5
#define DNS_TYPE_SOA   6
#define DNS_TYPE_PTR   12
#define DNS_TYPE_MX    15
#define DNS_TYPE_TXT   16
#define DNS_TYPE_AAAA  28
#define DNS_TYPE_OPT   41
#define DNS_TYPE_ANY   255

#define DNS_CLASS_IN 1

#define DNS_OPCODE_QUERY 0

#define DNS_RCODE_NOERROR  0
#define DNS_RCODE_FORMERR  1
#define DNS_RCODE_SERVFAIL 2
#define DNS_RCODE_NXDOMAIN 3
#define DNS_RCODE_NOTIMP   4
#define DNS_RCODE_REFUSED  5
#define DNS_RCODE_BADVERS  16   /* RFC 6891 §9: needs an OPT RR */
#define DNS_RCODE_MAX      4095 /* 4 header bits + 8 EDNS bits */

/* The second 16-bit word of the header (RFC 1035 §4.1.1, RFC 4035 §3.2). */
#define DNS_FLAG_QR          0x8000
#define DNS_FLAG_OPCODE_MASK 0x7800
#define DNS_FLAG_AA          0x0400
#define DNS_FLAG_TC          0x0200
#define DNS_FLAG_RD          0x0100
#define DNS_FLAG_RA          0x0080
#define DNS_FLAG_AD          0x0020
#define DNS_FLAG_CD          0x0010
#define DNS_FLAG_RCODE_MASK  0x000f
#define DNS_FLAGS_OPCODE(f)  (((f) >> 11) & 0xf)

enum dns_result {
	DNS_OK,
	/* TCP framing: more octets needed. */
	DNS_NEED_MORE,
	/* The message ends inside an element. */
	DNS_ERR_SHORT,
	/* A count or a field is not acceptable. */
	DNS_ERR_FORMAT,
	/* Bad label type or length, '.' or NUL in a label, a name longer
	 * than 255 octets. */
	DNS_ERR_NAME,
	/* Compression pointer forward, to itself, into the header, or too
	 * many of them. */
	DNS_ERR_POINTER,
	/* Octets after the last record. */
	DNS_ERR_TRAILING,
	/* More records (or questions) than this message may have. */
	DNS_ERR_TOO_MANY,
	/* Opcode other than QUERY. */
	DNS_ERR_NOT_QUERY,
	/* QR=1 where a query was expected. */
	DNS_ERR_RESPONSE,
	/* QR=0 where a response was expected. */
	DNS_ERR_NOT_RESPONSE,
	/* The response id differs from the query's. */
	DNS_ERR_ID,
	/* The response question differs from ours. */
	DNS_ERR_QUESTION,
	/* TC=1: retry over TCP. */
	DNS_ERR_TRUNCATED_RESPONSE,
	/* A/AAAA/CNAME RDATA of the wrong size. */
	DNS_ERR_RDATA,
	/* Malformed or misplaced OPT record. */
	DNS_ERR_EDNS,
	/* CNAME chain too long, looping or forked. */
	DNS_ERR_CHAIN,
	/* Output buffer too small. */
	DNS_ERR_SPACE,
	/* Invalid argument to a builder. */
	DNS_ERR_ARG,
};

/* EDNS information from an OPT record (RFC 6891 §6.1.3). */
struct dns_edns {
	bool present;
	uint16_t udp_size;   /* requestor's payload size, as sent */
	uint8_t ext_rcode;   /* upper 8 bits of the 12-bit rcode */
	uint8_t version;     /* 0 is the only one defined */
	bool do_bit;         /* DNSSEC OK (RFC 3225) */
	uint16_t option_len; /* total length of the options (RDLENGTH) */
};

struct dns_query {
	bool has_header; /* id and flags are valid: a reply can be sent */
	uint16_t id;
	uint16_t flags; /* the whole second header word; DNS_FLAG_* */
	uint8_t opcode;
	char qname[DNS_NAME_MAX + 1]; /* presentation form, case as sent */
	size_t qname_len;
	uint16_t qtype, qclass;
	/* The question as sent, so that a reply echoes it byte for byte. It
	 * always starts at offset DNS_HEADER_LEN of the query. */
	uint8_t question[DNS_QUESTION_MAX];
	size_t question_len;
	struct dns_edns edns;
	size_t err_off; /* offset of the offending byte when not DNS_OK */
};

/*
 * One answer record. To build: type is DNS_TYPE_A (addr.family AF_INET),
 * DNS_TYPE_AAAA (AF_INET6) or DNS_TYPE_CNAME (target). Parsed answers use the
 * same shape.
 */
struct dns_answer {
	uint16_t type;
	uint32_t ttl; /* seconds, as on the wire */
	struct addr addr;
	char target[DNS_NAME_MAX + 1]; /* CNAME target, presentation form */
	size_t target_len;
};

struct dns_response_info {
	uint16_t id;
	uint16_t flags;
	unsigned rcode; /* header bits plus EDNS extended bits */
	uint16_t qdcount, ancount, nscount, arcount;
	struct dns_edns edns;
	size_t ncname;  /* CNAMEs followed from the qname */
	size_t naddr;   /* A/AAAA records of the canonical name kept */
	size_t dropped; /* canonical-name addresses beyond max_answers */
	size_t ignored; /* answer records about other names or types */
	size_t err_off; /* offset of the offending byte when not DNS_OK */
};

/* Stable English text for a result. */
const char *dns_strerror(enum dns_result r);

/*
 * Reads the name at *off of the message msg[0..msg_len) (msg is the start of
 * the message: header included) into out as presentation form: labels joined
 * with '.', no trailing dot, the root as "". On DNS_OK *off is just past the
 * name where it started (after a first compression pointer, if any), *out_len
 * is its length and out is NUL-terminated; otherwise *off is unchanged.
 *
 * Compression pointers (RFC 1035 §4.1.4) must point past the header and
 * strictly before the start of the labels being read (the name's start, then
 * each pointer's target), so every hop goes backwards and loops are
 * impossible; at most DNS_NAME_HOPS_MAX hops and DNS_NAME_WIRE_MAX octets.
 * Labels are 1..63 octets (the 0x40/0x80 label types are refused). A label
 * containing '.' or NUL is refused: it would change the name's meaning in
 * presentation form. Nothing is escaped or unescaped, and no other byte is
 * judged here: the caller passes the name to hostname_normalize(), which
 * refuses anything but letters, digits and hyphens. out and out_len may be
 * NULL to validate and skip a name.
 */
enum dns_result dns_name_read(const uint8_t *msg, size_t msg_len, size_t *off,
    char out[DNS_NAME_MAX + 1], size_t *out_len);

/*
 * Parses a query received by the policy DNS server: QR=0, opcode QUERY,
 * QDCOUNT 1, ANCOUNT 0, NSCOUNT 0, ARCOUNT 0 or 1 where the only additional
 * record allowed is one OPT (root owner, type 41, well-formed options), and
 * nothing after it. qtype and qclass are reported, not judged (the server
 * answers only IN A/AAAA), nor is the EDNS version (the server answers
 * BADVERS to version > 0, RFC 6891 §6.1.3). q->qname still has to go through
 * hostname_normalize().
 *
 * On any result but DNS_ERR_SHORT before 12 octets, q->has_header is true
 * and q->id, q->flags and q->opcode are set, so the server can answer FORMERR
 * or NOTIMP (DNS_ERR_NOT_QUERY) with dns_build_header_reply(); it must not
 * answer DNS_ERR_RESPONSE (a reply aimed at it) at all.
 */
enum dns_result dns_parse_query(
    const uint8_t *msg, size_t len, struct dns_query *q);

/*
 * The largest reply the client accepts: DNS_MSG_MAX over TCP; over UDP 512
 * without EDNS, otherwise its advertised size within [512, DNS_EDNS_MAX]
 * (RFC 6891 §6.2.5).
 */
size_t dns_response_max_len(const struct dns_query *q, bool tcp);

/*
 * Builds the reply to q (a DNS_OK result of dns_parse_query) into
 * out[0..max_len): QR=1, id and opcode of the query, RD and CD copied, RA=1,
 * AA=0, the question echoed byte for byte, the answers, and an OPT record
 * (payload size DNS_EDNS_MAX, version 0, DO clear) when the query had one.
 * rcode is 0..15, or up to DNS_RCODE_MAX when the query had EDNS.
 *
 * answers[] is zero or more CNAMEs followed by A/AAAA records: the first
 * record is owned by the qname (written as the pointer 0xc00c), each CNAME
 * moves the owner of the records after it to its target. When the whole
 * reply does not fit in max_len, every answer is dropped and TC is set
 * (RFC 1035 §4.2.1, RFC 2181 §9): the client retries over TCP. max_len comes
 * from dns_response_max_len() and is at most DNS_MSG_MAX; out has room for
 * max_len octets. DNS_ERR_SPACE when not even the question fits,
 * DNS_ERR_ARG for a bad rcode, answer type, address family or order,
 * DNS_ERR_NAME for a CNAME target that is not a valid name.
 */
enum dns_result dns_build_response(const struct dns_query *q, unsigned rcode,
    const struct dns_answer *answers, size_t nanswers, size_t max_len,
    uint8_t *out, size_t *out_len);

/*
 * A 12-octet reply with no question (RFC 1035 §4.1.1 allows QDCOUNT 0), for
 * a query whose question cannot be parsed (FORMERR) or whose opcode is not
 * implemented (NOTIMP): id and query_flags from a query with has_header; QR=1,
 * opcode, RD and CD copied, RA=1. rcode is 0..15.
 */
enum dns_result dns_build_header_reply(uint16_t id, uint16_t query_flags,
    unsigned rcode, uint8_t *out, size_t out_cap, size_t *out_len);

/*
 * Builds a recursive query (RD=1) for qname (presentation form, no escapes,
 * at most one trailing dot) into out[0..out_cap), with an OPT record
 * advertising edns_udp_size when that is nonzero. For the resolver's
 * upstream queries, the tools and the tests.
 */
enum dns_result dns_build_query(uint16_t id, const char *qname, uint16_t qtype,
    uint16_t edns_udp_size, uint8_t *out, size_t out_cap, size_t *out_len);

/*
 * Checks an upstream reply to the query (expect_id, expect_qname, IN
 * expect_qtype): QR=1, the id, opcode QUERY, the question echoed (names
 * compared case-insensitively, RFC 4343), then TC (DNS_ERR_TRUNCATED_RESPONSE:
 * nothing after the question is trusted), then every record of every
 * section is validated structurally (names, bounds, IN A/AAAA RDLENGTH 4/16,
 * CNAME RDATA exactly one name, at most one OPT and only in the additional
 * section) and nothing may follow the last one.
 *
 * answers[] then receives the CNAME chain from expect_qname (in chain order,
 * at most DNS_CNAME_CHAIN_MAX, whatever the order of the records; a name with
 * two CNAMEs or a longer chain is DNS_ERR_CHAIN), followed by the
 * expect_qtype records (A or AAAA; both when expect_qtype is neither) owned by
 * the end of the chain, in message order. Records about any other name,
 * including addresses of intermediate chain names (RFC 1034 §3.6.2 forbids
 * them), are ignored and counted in info->ignored. TTLs are reported as
 * given. DNS_OK means well-formed and about our question: info->rcode still
 * says whether it is an answer. DNS_ERR_SPACE when the chain does not fit in
 * max_answers; addresses that do not fit are counted in info->dropped.
 * expect_qname is presentation form, as from hostname_normalize().
 */
enum dns_result dns_parse_response(const uint8_t *msg, size_t len,
    uint16_t expect_id, const char *expect_qname, uint16_t expect_qtype,
    struct dns_response_info *info, struct dns_answer *answers,
    size_t max_answers, size_t *nanswers);

/*
 * TCP framing (RFC 7766 §8): when buf[0..len) starts with a complete
 * length-prefixed message, DNS_OK with *msg_len its length (the message is
 * buf[2..2 + *msg_len); 2 + *msg_len octets are consumed); DNS_NEED_MORE
 * while fewer octets are present; DNS_ERR_SHORT as soon as the prefix
 * announces fewer than 12 octets (no message is that short).
 */
enum dns_result dns_tcp_frame_len(
    const uint8_t *buf, size_t len, size_t *msg_len);

/* Writes the 2-octet TCP length prefix for a message of msg_len octets
 * (at most DNS_MSG_MAX). */
void dns_tcp_prefix(uint8_t out[2], size_t msg_len);

#endif
