/* SPDX-License-Identifier: ISC */
/*
 * The certificate authority egressd uses to intercept TLS on endpoints with
 * `protocol: rest`: generated at start (ECDSA P-256) or loaded from files,
 * its certificate written where the sandbox can read it (alone, and as a
 * bundle with the trusted roots), leaf certificates minted per host and
 * cached. Also the OpenSSL contexts for both sides of an intercepted
 * connection.
 */
#ifndef EGRESSD_TLS_CA_H
#define EGRESSD_TLS_CA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/ssl.h>

#include "hostname.h"

struct tls_ca;

struct tls_ca_opts {
	const char *cert_file, *key_file; /* load these; NULL: generate */
	const char *out_dir; /* where ca.pem and bundle.pem are written */
	const char *roots;   /* upstream trust: a PEM bundle, or NULL for
				 the system store */
	size_t cache_max;    /* leaf certificates kept */
};

struct tls_ca_stats {
	uint64_t minted, cache_hits;
	uint64_t mint_us_total, mint_us_max;
	uint64_t upstream_offered;     /* sessions offered to a server again */
	uint64_t upstream_resumptions; /* ...and resumed by it */
};

struct tls_ca *tls_ca_new(
    const struct tls_ca_opts *o, char *err, size_t errlen);
void tls_ca_free(struct tls_ca *ca);

/* An SSL object for the client side, presenting a leaf for host (minted or
 * cached), ALPN limited to http/1.1. NULL on failure. */
SSL *tls_ca_server_ssl(struct tls_ca *ca, const struct hostname *host);
/* An SSL object for the upstream side: verifies the server against the
 * trusted roots with hostname checking, sends host as SNI, offers
 * http/1.1 only. */
SSL *tls_ca_client_ssl(struct tls_ca *ca, const struct hostname *host);
/* Counts an upstream handshake that has completed (resumed or not). */
void tls_ca_upstream_done(struct tls_ca *ca, SSL *ssl);

const char *tls_ca_cert_path(const struct tls_ca *ca);
const char *tls_ca_bundle_path(const struct tls_ca *ca);
void tls_ca_get_stats(const struct tls_ca *ca, struct tls_ca_stats *st);

/* A short description of the last OpenSSL error (for logs), and of a
 * certificate verification result. */
const char *tls_ca_errstr(void);

#endif
