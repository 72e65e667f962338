/* flags: -q */
BEGIN { exit(0); }
END { printf("end 1\n"); }
END { printf("end 2\n"); }
