print("presignd")
