#ifndef SECTIONCTL_CCRYPTO_SHIM_H
#define SECTIONCTL_CCRYPTO_SHIM_H

/// OpenSSL's libcrypto, for the sync service: random bytes (RAND_bytes), SHA-256 (EVP_Digest with
/// EVP_sha256) and a comparison in constant time (CRYPTO_memcmp).
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#endif
