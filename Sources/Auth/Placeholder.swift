// Auth module: placeholder until its first file lands.
