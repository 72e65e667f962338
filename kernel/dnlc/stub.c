#include <scion/dnlc.h>
#include <scion/errno.h>
int  dnlc_lookup(uint32_t fs, uint64_t dir, const char *name, size_t len, uint64_t *ino) { (void)fs;(void)dir;(void)name;(void)len;(void)ino; return -ENOENT; }
void dnlc_enter(uint32_t fs, uint64_t dir, const char *name, size_t len, uint64_t ino) { (void)fs;(void)dir;(void)name;(void)len;(void)ino; }
