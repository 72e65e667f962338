/* Without -n, a description alone is not a clause. */
fbt::bcache_read:entry