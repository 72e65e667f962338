struct in { int a; };
struct out { int x; int y; };
translator int < struct in *P > { x = 1; };
translator struct out < struct in *P > { z = P->a; };
inline int LIMIT = 10;
inline int LIMIT = 11;
