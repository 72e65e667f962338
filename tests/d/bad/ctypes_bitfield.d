struct flags { unsigned char wide : 9; };
