"""The box's web faces: the simulator in a browser and the phones at the table."""
