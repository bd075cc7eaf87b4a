// OpenSSL's libcrypto, only for what swift-crypto's BoringSSL does at half the speed on x86-64: RSA signing.
#ifndef GATEHOUSE_CLIBCRYPTO_SHIM_H
#define GATEHOUSE_CLIBCRYPTO_SHIM_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#endif
