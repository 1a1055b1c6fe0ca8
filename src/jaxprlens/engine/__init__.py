"""The engines that compute on a program: the stepper (and its per-primitive frames), devices and the
runner, cost rules, transformations.  They return data; the words a reader sees are made in ``present``."""
