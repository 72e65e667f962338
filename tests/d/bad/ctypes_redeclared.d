struct point { int x, y; };
struct point { long x; };
