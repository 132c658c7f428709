#ifndef SECTIONCTL_CCURL_H
#define SECTIONCTL_CCURL_H

/*
 * libcurl for the `sectionctl` command, loaded when first called rather than linked.
 *
 * On Linux the command links Foundation statically, and URLSession (a replica's sync) calls
 * libcurl. Linked by name, libcurl and the thirty-odd libraries it needs (TLS, HTTP/2, Kerberos,
 * LDAP, PKCS #11…) were loaded and relocated at every start, most of a short command's time. The
 * loader defines the libcurl functions that Foundation calls, under their own names: the first
 * call opens libcurl (libcurl.so.4) and every call goes through to it, so a process that never
 * syncs never loads it.
 *
 * The functions take libcurl's stable ABI (libcurl.so.4), declared in loader.c, so building needs
 * no libcurl headers. Only the command links this target: the tests and an app link Foundation as
 * a shared library, which loads libcurl itself.
 */

#ifdef __cplusplus
extern "C" {
#endif

/* Opens libcurl if it is not open yet: 1 when it is, 0 when it cannot be. Each libcurl function
 * the loader defines calls it first, and stops the command with the reason when it is 0. Safe
 * to call from any thread, any number of times. */
int ccurl_load(void);

#ifdef __cplusplus
}
#endif

#endif
