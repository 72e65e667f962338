/* TEMP STUB */
#ifndef SCION_DNLC_H
#define SCION_DNLC_H
#include <scion/compiler.h>
int  dnlc_lookup(uint32_t fs, uint64_t dir, const char *name, size_t len, uint64_t *ino);
void dnlc_enter(uint32_t fs, uint64_t dir, const char *name, size_t len, uint64_t ino);
#endif
