int x;
self string s;
