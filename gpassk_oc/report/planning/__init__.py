"""``gpassk-oc plan``'s model and text: a sample size for an interval width or a difference."""
