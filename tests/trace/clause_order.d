/* flags: -q */
/* run: bcache run seq n=2 start=100 */
fbt::bcache_read:entry { printf("first %d\n", arg0); }
fbt::bcache_read:entry { printf("second %d\n", arg0); }
fbt::bcache_read:entry /arg0 == 101/ { printf("third %d\n", arg0); }
